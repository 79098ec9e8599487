//! HTTP/1.1 written by hand: an HTTP client library folds `..` and `%2e`
//! away before sending, so the paths an attacker sends must be written as
//! they are. One request a connection.

use std::net::{IpAddr, SocketAddr};

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Whether something listens on `port` on 127.0.0.1 yet.
pub async fn listening(port: u16) -> bool {
    tokio::net::TcpStream::connect(("127.0.0.1", port)).await.is_ok()
}

/// What came back: the status and the body, as JSON where it is.
pub struct Answer {
    pub status: u16,
    pub body: Value,
}

/// One request to `port` on 127.0.0.1, from `from` (a loopback address of
/// the test's choosing) when given; `headers` as written.
pub async fn send(
    port: u16,
    from: Option<IpAddr>,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> Answer {
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    if let Some(ip) = from {
        socket.bind(SocketAddr::new(ip, 0)).unwrap();
    }
    let mut stream = socket.connect(([127, 0, 0, 1], port).into()).await.unwrap();
    let mut request = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n");
    for (name, value) in headers {
        request.push_str(&format!("{name}: {value}\r\n"));
    }
    if !body.is_empty() {
        request.push_str(&format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        ));
    }
    request.push_str("\r\n");
    request.push_str(body);
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.unwrap();
    parse(&answer)
}

fn parse(answer: &[u8]) -> Answer {
    let text = String::from_utf8_lossy(answer);
    let status = text
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {text:?}"));
    let (head, rest) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let chunked = head.to_ascii_lowercase().contains("transfer-encoding: chunked");
    let body = if chunked { unchunk(rest) } else { rest.to_string() };
    Answer {
        status,
        body: serde_json::from_str(&body).unwrap_or(Value::String(body)),
    }
}

fn unchunk(mut rest: &str) -> String {
    let mut out = String::new();
    while let Some((size, after)) = rest.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if n == 0 || after.len() < n {
            break;
        }
        out.push_str(&after[..n]);
        rest = after[n..].trim_start_matches("\r\n");
    }
    out
}
