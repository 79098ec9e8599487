//! Server-sent events as a streamed completion sends them: bytes in, in
//! whatever pieces the network gives, the `data:` payloads out once each
//! line is whole (a piece may end inside a line, or inside a UTF-8 character).

#[derive(Default)]
pub(super) struct DataLines {
    pending: Vec<u8>,
}

impl DataLines {
    /// Takes the next bytes; returns the `data:` payloads they completed.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<String> {
        self.pending.extend_from_slice(bytes);
        let mut out = Vec::new();
        while let Some(end) = self.pending.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = self.pending.drain(..=end).collect();
            let line = String::from_utf8_lossy(&line);
            let line = line.trim_end_matches(['\r', '\n']);
            if let Some(data) = line.strip_prefix("data:") {
                out.push(data.trim_start().to_string());
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payloads_come_whole_however_the_bytes_are_cut() {
        let stream = "data: {\"a\":\"é\"}\r\n\r\n: a comment\nevent: x\ndata: [DONE]\n\n".as_bytes();
        for cut in 1..stream.len() {
            let mut lines = DataLines::default();
            let mut got = lines.feed(&stream[..cut]);
            got.extend(lines.feed(&stream[cut..]));
            assert_eq!(got, vec!["{\"a\":\"é\"}", "[DONE]"], "cut at {cut}");
        }
    }
}
