//! The few PNG chunks a character card lives in: `tEXt` chunks keyed
//! `chara` (V2), `ccv3` (V3) and `chara-ext-asset_:N` (V3 assets), each a
//! base64 payload. Only the chunk layer is read; the image is left as is.

use super::CardError;

const SIGNATURE: [u8; 8] = [0x89, b'P', b'N', b'G', b'\r', b'\n', 0x1a, b'\n'];

pub fn is_png(bytes: &[u8]) -> bool {
    bytes.starts_with(&SIGNATURE)
}

/// One chunk: its four-letter type and its data.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chunk {
    pub kind: [u8; 4],
    pub data: Vec<u8>,
}

impl Chunk {
    /// A `tEXt` chunk's keyword and text, if this is one.
    pub fn text(&self) -> Option<(&str, &[u8])> {
        if &self.kind != b"tEXt" {
            return None;
        }
        let nul = self.data.iter().position(|&b| b == 0)?;
        let keyword = std::str::from_utf8(&self.data[..nul]).ok()?;
        Some((keyword, &self.data[nul + 1..]))
    }

    pub fn new_text(keyword: &str, text: &str) -> Chunk {
        let mut data = keyword.as_bytes().to_vec();
        data.push(0);
        data.extend_from_slice(text.as_bytes());
        Chunk { kind: *b"tEXt", data }
    }
}

/// Every chunk of a PNG file, each checked against its CRC.
pub fn chunks(bytes: &[u8]) -> Result<Vec<Chunk>, CardError> {
    if !is_png(bytes) {
        return Err(CardError::Png("not a PNG file (no PNG signature)".into()));
    }
    let mut rest = &bytes[SIGNATURE.len()..];
    let mut out = Vec::new();
    while !rest.is_empty() {
        if rest.len() < 12 {
            return Err(CardError::Png("the file ends inside a chunk header".into()));
        }
        let len = u32::from_be_bytes(rest[..4].try_into().expect("4 bytes")) as usize;
        let kind: [u8; 4] = rest[4..8].try_into().expect("4 bytes");
        if rest.len() < 12 + len {
            let name = String::from_utf8_lossy(&kind).into_owned();
            return Err(CardError::Png(format!(
                "chunk {name} claims {len} bytes past the end of the file"
            )));
        }
        let data = &rest[8..8 + len];
        let crc = u32::from_be_bytes(rest[8 + len..12 + len].try_into().expect("4 bytes"));
        if crc != chunk_crc(&kind, data) {
            let name = String::from_utf8_lossy(&kind).into_owned();
            return Err(CardError::Png(format!(
                "chunk {name} fails its CRC check (a damaged file)"
            )));
        }
        out.push(Chunk {
            kind,
            data: data.to_vec(),
        });
        rest = &rest[12 + len..];
        if &kind == b"IEND" {
            break;
        }
    }
    if out.first().is_none_or(|c| &c.kind != b"IHDR") {
        return Err(CardError::Png("the first chunk is not IHDR".into()));
    }
    Ok(out)
}

/// A PNG file of these chunks.
pub fn write(chunks: &[Chunk]) -> Vec<u8> {
    let mut out = SIGNATURE.to_vec();
    for c in chunks {
        out.extend_from_slice(&(c.data.len() as u32).to_be_bytes());
        out.extend_from_slice(&c.kind);
        out.extend_from_slice(&c.data);
        out.extend_from_slice(&chunk_crc(&c.kind, &c.data).to_be_bytes());
    }
    out
}

/// The image alone: the chunks a card adds (`tEXt` keyed `chara`, `ccv3`
/// or an asset) are removed, so a stored portrait does not carry an old card.
pub fn without_card(chunks: Vec<Chunk>) -> Vec<Chunk> {
    chunks
        .into_iter()
        .filter(|c| !c.text().is_some_and(|(k, _)| is_card_keyword(k)))
        .collect()
}

pub fn is_card_keyword(keyword: &str) -> bool {
    keyword == "chara" || keyword == "ccv3" || keyword.starts_with("chara-ext-asset_")
}

/// A plain square portrait in one colour, for a persona that has none:
/// `size` x `size` RGB pixels, zlib-compressed.
pub fn plain_image(size: u32, rgb: [u8; 3]) -> Vec<Chunk> {
    use std::io::Write;
    let mut ihdr = Vec::with_capacity(13);
    ihdr.extend_from_slice(&size.to_be_bytes());
    ihdr.extend_from_slice(&size.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]); // 8-bit RGB, deflate, no filter, no interlace
    // Each row: filter byte 0 (none), then the pixels.
    let row: Vec<u8> = std::iter::once(0)
        .chain(rgb.iter().copied().cycle().take(size as usize * 3))
        .collect();
    let raw = row.repeat(size as usize);
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
    z.write_all(&raw).expect("writing to memory");
    let idat = z.finish().expect("writing to memory");
    vec![
        Chunk {
            kind: *b"IHDR",
            data: ihdr,
        },
        Chunk {
            kind: *b"IDAT",
            data: idat,
        },
        Chunk {
            kind: *b"IEND",
            data: Vec::new(),
        },
    ]
}

/// Inserts chunks just before IEND.
pub fn with_text(mut chunks: Vec<Chunk>, added: Vec<Chunk>) -> Vec<Chunk> {
    let end = chunks.iter().position(|c| &c.kind == b"IEND").unwrap_or(chunks.len());
    chunks.splice(end..end, added);
    chunks
}

fn chunk_crc(kind: &[u8; 4], data: &[u8]) -> u32 {
    let mut h = crc32fast::Hasher::new();
    h.update(kind);
    h.update(data);
    h.finalize()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_chunks_survive_a_write_and_a_read() {
        let image = plain_image(4, [200, 180, 120]);
        let file = write(&with_text(image, vec![Chunk::new_text("chara", "eyJ9")]));
        let read = chunks(&file).unwrap();
        assert_eq!(read.len(), 4);
        assert_eq!(read[2].text(), Some(("chara", &b"eyJ9"[..])));
        assert_eq!(&read[3].kind, b"IEND");
        assert_eq!(without_card(read).len(), 3);
    }

    #[test]
    fn damage_is_named() {
        let mut file = write(&plain_image(2, [0, 0, 0]));
        assert!(matches!(chunks(b"GIF89a"), Err(CardError::Png(m)) if m.contains("signature")));
        let last = file.len() - 5;
        file[last] ^= 0xff; // inside IEND's CRC
        assert!(matches!(chunks(&file), Err(CardError::Png(m)) if m.contains("CRC")));
        file.truncate(20);
        assert!(matches!(chunks(&file), Err(CardError::Png(m)) if m.contains("past the end")));
    }
}
