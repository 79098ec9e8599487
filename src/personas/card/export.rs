//! A persona as a card another tool reads: the card's fields in its words
//! (`text_fields`), the whole persona under `extensions.kibitz` so that
//! importing the card gives back the same persona, and its images.

use std::str::FromStr;

use serde_json::json;

use super::assets::{Files, image_ext};
use super::spec::{Asset, Card, CardData, LoreEntry, Lorebook, Spec};
use super::{encode_base64, png, text};
use crate::personas::Persona;

/// kibitz's scene for every persona, which an import does not read back.
const SCENARIO: &str = "{{char}} and {{user}} sit down to a game of chess at the club. {{char}} plays and chats.";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    V3Png,
    V3Json,
    V2Json,
}

impl FromStr for Format {
    type Err = String;
    fn from_str(s: &str) -> Result<Format, String> {
        match s {
            "v3-png" => Ok(Format::V3Png),
            "v3-json" => Ok(Format::V3Json),
            "v2-json" => Ok(Format::V2Json),
            _ => Err(format!("unknown card format '{s}': v3-png, v3-json or v2-json")),
        }
    }
}

impl Format {
    pub fn extension(self) -> &'static str {
        match self {
            Format::V3Png => "png",
            _ => "json",
        }
    }
}

/// The card fields kibitz writes for a persona, without images or the
/// persona itself.
pub fn text_fields(p: &Persona) -> CardData {
    let origin = p.card.clone().unwrap_or_default();
    let mut greetings = p.lines.greeting.iter().map(|l| text::card_macros(&l.text));
    let entries: Vec<LoreEntry> = p
        .lore
        .iter()
        .enumerate()
        .map(|(i, l)| LoreEntry {
            keys: l.keys.clone(),
            content: l.text.clone(),
            insertion_order: (l.importance * 100.0).round() as i64,
            constant: Some(l.keys.is_empty() || l.importance >= 1.0),
            id: Some(json!(i)),
            ..LoreEntry::default()
        })
        .collect();
    let creator_notes = match origin.creator_notes.is_empty() {
        true => format!("A chess-club persona from kibitz: {} Elo, {:?} style.", p.elo, p.style),
        false => origin.creator_notes,
    };
    CardData {
        name: p.name.clone(),
        description: p.biography.clone(),
        personality: p.voice.clone(),
        scenario: SCENARIO.into(),
        first_mes: greetings.next().unwrap_or_default(),
        alternate_greetings: greetings.collect(),
        mes_example: text::mes_example(&p.examples),
        creator_notes,
        tags: origin.tags,
        creator: origin.creator,
        character_version: origin.character_version,
        character_book: (!entries.is_empty()).then(|| Lorebook {
            name: Some(format!("{}'s lore", p.name)),
            entries,
            ..Lorebook::default()
        }),
        ..CardData::default()
    }
}

/// The card file: JSON text, or a PNG whose image is the persona's portrait
/// (a plain square if it has none or it is not a PNG).
pub fn card(p: &Persona, files: &Files, format: Format) -> Vec<u8> {
    let mut data = text_fields(p);
    data.extensions
        .insert("kibitz".into(), json!({ "version": 1, "persona": p }));
    data.extensions.insert(
        "talkativeness".into(),
        json!(format!("{:.2}", 1.0 / p.chattiness.max(1) as f64)),
    );
    let avatar = p.avatar.as_ref().and_then(|a| files.get(a));
    let carrier = match avatar {
        Some(bytes) if image_ext(bytes) == Some("png") => png::chunks(bytes).ok().map(png::without_card),
        _ => None,
    };
    let in_png = format == Format::V3Png;
    let mut embedded: Vec<png::Chunk> = Vec::new();
    let mut as_uri = |name: &str, bytes: &[u8]| {
        if in_png {
            embedded.push(png::Chunk::new_text(
                &format!("chara-ext-asset_:{name}"),
                &encode_base64(bytes),
            ));
            format!("__asset:{name}")
        } else {
            let mime = match image_ext(bytes) {
                Some("jpg") => "jpeg",
                Some(ext) => ext,
                None => "octet-stream",
            };
            format!("data:image/{mime};base64,{}", encode_base64(bytes))
        }
    };
    let mut assets = Vec::new();
    match (avatar, &carrier) {
        (_, Some(_)) if in_png => assets.push(asset("icon", "ccdefault:", "main", "png")),
        (Some(bytes), _) => assets.push(asset(
            "icon",
            &as_uri("avatar", bytes),
            "main",
            image_ext(bytes).unwrap_or("unknown"),
        )),
        (None, _) => assets.push(asset("icon", "ccdefault:", "main", "png")),
    }
    for (emotion, file) in &p.expression_images {
        if let Some(bytes) = files.get(file) {
            let uri = as_uri(emotion, bytes);
            assets.push(asset("emotion", &uri, emotion, image_ext(bytes).unwrap_or("unknown")));
        }
    }
    let v2 = Card {
        spec: Spec::V2,
        data: data.clone(),
    };
    if format == Format::V2Json {
        return pretty(&v2);
    }
    data.assets = Some(assets);
    data.group_only_greetings = Some(Vec::new());
    let v3 = Card { spec: Spec::V3, data };
    if !in_png {
        return pretty(&v3);
    }
    let image = carrier.unwrap_or_else(|| png::plain_image(256, colour_of(&p.id)));
    let mut chunks = vec![
        png::Chunk::new_text("chara", &encode_base64(v2.to_json().to_string().as_bytes())),
        png::Chunk::new_text("ccv3", &encode_base64(v3.to_json().to_string().as_bytes())),
    ];
    chunks.extend(embedded);
    png::write(&png::with_text(image, chunks))
}

fn asset(kind: &str, uri: &str, name: &str, ext: &str) -> Asset {
    Asset {
        kind: kind.into(),
        uri: uri.into(),
        name: name.into(),
        ext: ext.into(),
    }
}

fn pretty(card: &Card) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(&card.to_json()).expect("a card serializes");
    out.push(b'\n');
    out
}

/// A calm colour of the persona's own, for a portrait it lacks.
fn colour_of(id: &str) -> [u8; 3] {
    let h = id.bytes().fold(0u32, |h, b| h.wrapping_mul(31).wrapping_add(b as u32));
    [
        120 + (h % 100) as u8,
        120 + (h / 100 % 100) as u8,
        120 + (h / 10_000 % 100) as u8,
    ]
}
