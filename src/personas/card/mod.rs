//! Character cards (V2, V3) in and out: a card another tool wrote becomes
//! a persona that plays chess, and a persona becomes a card another tool
//! reads, with kibitz's chess fields under `extensions.kibitz`.
//!
//! `read` takes a file's bytes (PNG or JSON) to a `Card` and what it
//! carries; `import::persona` maps it to a validated persona and its files;
//! `export::card` goes back. Nothing here writes to disk: `personas::install`
//! does, all or nothing.

mod assets;
mod export;
mod import;
mod png;
mod spec;
mod text;

pub use assets::{Files, image_ext};
pub use export::{Format, card as export};
pub use import::{ImportOptions, Imported, persona as import, slug};
pub use spec::{Card, CardData, Spec, hostile};

use std::collections::BTreeMap;

use base64::Engine as _;

/// A card file may be at most this large, PNG or JSON.
pub const MAX_CARD_BYTES: usize = 5 * 1024 * 1024;

#[derive(Debug, thiserror::Error)]
pub enum CardError {
    #[error("the card is {0} bytes; at most {MAX_CARD_BYTES} (5 MiB)")]
    TooLarge(usize),
    #[error("PNG: {0}")]
    Png(String),
    #[error("the PNG holds no character card (no tEXt chunk named `chara` or `ccv3`)")]
    NoCard,
    #[error("field `{field}`: {problem}")]
    Field { field: String, problem: String },
    #[error("not valid JSON: {0}")]
    Json(String),
}

impl CardError {
    pub fn field(field: impl Into<String>, problem: impl Into<String>) -> CardError {
        CardError::Field {
            field: field.into(),
            problem: problem.into(),
        }
    }
}

/// A card as a file carried it.
#[derive(Debug, Clone)]
pub struct ReadCard {
    pub card: Card,
    /// The PNG's image without the card's chunks: the portrait (V3's
    /// `ccdefault:` icon).
    pub image: Option<Vec<u8>>,
    /// V3 assets embedded in the PNG as `chara-ext-asset_:{path}` chunks,
    /// by path (reached through `__asset:{path}` URIs).
    pub embedded: BTreeMap<String, Vec<u8>>,
}

/// Reads a card file: a PNG with a `ccv3` (preferred) or `chara` chunk, or
/// the card's JSON.
pub fn read(bytes: &[u8]) -> Result<ReadCard, CardError> {
    if bytes.len() > MAX_CARD_BYTES {
        return Err(CardError::TooLarge(bytes.len()));
    }
    if bytes.starts_with(b"PK\x03\x04") {
        return Err(CardError::field(
            "(the file)",
            "is a CHARX (zip) card, which kibitz does not read: export it as PNG or JSON",
        ));
    }
    if !png::is_png(bytes) {
        let card = Card::from_json(bytes)?;
        return Ok(ReadCard {
            card,
            image: None,
            embedded: BTreeMap::new(),
        });
    }
    let chunks = png::chunks(bytes)?;
    let mut texts: BTreeMap<String, &[u8]> = BTreeMap::new();
    for (keyword, text) in chunks.iter().filter_map(png::Chunk::text) {
        texts.entry(keyword.to_string()).or_insert(text);
    }
    let (keyword, payload) = ["ccv3", "chara"]
        .into_iter()
        .find_map(|k| texts.get(k).map(|t| (k, *t)))
        .ok_or(CardError::NoCard)?;
    let json = decode_base64(payload).map_err(|e| CardError::field(format!("PNG chunk `{keyword}`"), e))?;
    let card = Card::from_json(&json)?;
    let mut embedded = BTreeMap::new();
    for (k, text) in &texts {
        if let Some(path) = k.strip_prefix("chara-ext-asset_:") {
            let data = decode_base64(text).map_err(|e| CardError::field(format!("PNG chunk `{k}`"), e))?;
            embedded.insert(path.to_string(), data);
        }
    }
    Ok(ReadCard {
        card,
        image: Some(png::write(&png::without_card(chunks))),
        embedded,
    })
}

fn decode_base64(text: &[u8]) -> Result<Vec<u8>, String> {
    let trimmed: Vec<u8> = text.iter().copied().filter(|b| !b.is_ascii_whitespace()).collect();
    base64::engine::general_purpose::STANDARD
        .decode(&trimmed)
        .map_err(|e| format!("is not valid base64 ({e})"))
}

fn encode_base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png_with(keyword: &str, text: &str) -> Vec<u8> {
        let chunks = png::with_text(
            png::plain_image(2, [1, 2, 3]),
            vec![png::Chunk::new_text(keyword, text)],
        );
        png::write(&chunks)
    }

    #[test]
    fn a_png_card_is_read_from_its_chunk_and_its_image_kept_clean() {
        let json = r#"{"spec":"chara_card_v2","spec_version":"2.0","data":{"name":"Ada"}}"#;
        let read = read(&png_with("chara", &encode_base64(json.as_bytes()))).unwrap();
        assert_eq!(read.card.data.name, "Ada");
        let image = png::chunks(read.image.as_deref().unwrap()).unwrap();
        assert!(
            image.iter().all(|c| c.text().is_none()),
            "the card's chunk is not kept in the portrait"
        );
    }

    #[test]
    fn broken_pngs_say_what_is_wrong() {
        assert!(matches!(read(&png_with("Comment", "hello")), Err(CardError::NoCard)));
        let bad = read(&png_with("chara", "%%% not base64"));
        assert!(matches!(bad, Err(CardError::Field { field, .. }) if field == "PNG chunk `chara`"));
        let not_json = read(&png_with("ccv3", &encode_base64(b"{oops")));
        assert!(matches!(not_json, Err(CardError::Json(_))));
        assert!(matches!(
            read(&vec![b' '; MAX_CARD_BYTES + 1]),
            Err(CardError::TooLarge(_))
        ));
    }
}
