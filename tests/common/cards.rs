//! Character cards written by hand from the public V2 and V3 specifications,
//! for the import tests: JSON, and PNG files with `tEXt` chunks.

#![allow(dead_code)]

use base64::Engine as _;
use serde_json::{Value, json};

/// A copy of the shipped personas, for a server or a command that adds one.
pub fn personas_copy() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(super::repo().join("personas")).unwrap() {
        let path = entry.unwrap().path();
        std::fs::copy(&path, dir.path().join(path.file_name().unwrap())).unwrap();
    }
    dir
}

/// `POST /api/admin/personas/import{query}` with the card as the body.
pub async fn import_card(server: &super::Server, admin: &str, query: &str, body: Vec<u8>) -> (u16, Value) {
    let r = reqwest::Client::new()
        .post(format!("{}/api/admin/personas/import{query}", server.base))
        .bearer_auth(admin)
        .body(body)
        .send()
        .await
        .unwrap();
    let status = r.status().as_u16();
    (status, r.json().await.unwrap_or(Value::Null))
}

pub fn b64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

/// A PNG of `size` x `size` grey pixels with these `tEXt` chunks before IEND.
pub fn png(size: u32, texts: &[(&str, String)]) -> Vec<u8> {
    use std::io::Write;
    let chunk = |out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]| {
        out.extend_from_slice(&(data.len() as u32).to_be_bytes());
        out.extend_from_slice(kind);
        out.extend_from_slice(data);
        let mut crc = crc32fast::Hasher::new();
        crc.update(kind);
        crc.update(data);
        out.extend_from_slice(&crc.finalize().to_be_bytes());
    };
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    let mut ihdr = size.to_be_bytes().to_vec();
    ihdr.extend_from_slice(&size.to_be_bytes());
    ihdr.extend_from_slice(&[8, 0, 0, 0, 0]); // 8-bit greyscale
    chunk(&mut out, b"IHDR", &ihdr);
    let raw: Vec<u8> = (0..size)
        .flat_map(|_| std::iter::once(0).chain((0..size).map(|_| 128)))
        .collect();
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::fast());
    z.write_all(&raw).unwrap();
    chunk(&mut out, b"IDAT", &z.finish().unwrap());
    for (keyword, text) in texts {
        let mut data = keyword.as_bytes().to_vec();
        data.push(0);
        data.extend_from_slice(text.as_bytes());
        chunk(&mut out, b"tEXt", &data);
    }
    chunk(&mut out, b"IEND", &[]);
    out
}

/// The card's data: a retired sea captain with a lorebook.
pub fn captain_data() -> Value {
    json!({
        "name": "Captain Rook",
        "description": "{{char}} is a retired sea captain who sailed the North Atlantic for thirty years and learned chess from a ship's cook. He plays slowly and tells stories between moves.",
        "personality": "Gruff, warm and nautical; speaks in short salty sentences and calls {{user}} 'sailor'.",
        "scenario": "A harbour tavern.",
        "first_mes": "*sets down his pipe* Ahoy, {{user}}! Captain Rook at your service. Mind the board, it rolls.",
        "alternate_greetings": ["Well met, {{user}}. Sit, the tide waits for no one."],
        "mes_example": "<START>\n{{user}}: Nice move.\n{{char}}: Aye, learned that one off Newfoundland.\n<START>\n{{char}}: Check, sailor!",
        "creator_notes": "A test card written from the spec.",
        "system_prompt": "",
        "post_history_instructions": "",
        "tags": ["sailor", "chess"],
        "creator": "kibitz tests",
        "character_version": "1.0",
        "extensions": { "talkativeness": "0.5" },
        "character_book": {
            "name": "Rook's log",
            "extensions": {},
            "entries": [
                { "keys": ["lighthouse", "Brannock", "Old Nell"], "content": "{{char}} kept the Brannock lighthouse for two winters and played chess by lamplight with the keeper's daughter.",
                  "extensions": {}, "enabled": true, "insertion_order": 10, "use_regex": false, "constant": false },
                { "keys": [], "content": "@@depth 4\n{{char}} lost two fingers to a frozen anchor chain and moves the pieces with his left hand.",
                  "extensions": {}, "enabled": true, "insertion_order": 5, "use_regex": false, "constant": true },
                { "keys": ["mermaid"], "content": "This entry is switched off.", "extensions": {}, "enabled": false, "insertion_order": 1, "use_regex": false }
            ]
        }
    })
}

pub fn v2_json(data: Value) -> Vec<u8> {
    serde_json::to_vec(&json!({ "spec": "chara_card_v2", "spec_version": "2.0", "data": data })).unwrap()
}

pub fn v3(mut data: Value, assets: Value) -> Value {
    data["assets"] = assets;
    data["group_only_greetings"] = json!([]);
    json!({ "spec": "chara_card_v3", "spec_version": "3.0", "data": data })
}

/// A V3 PNG card with its portrait (the PNG itself), a "joy" face embedded
/// as a `chara-ext-asset_` chunk and a "neutral" face as a data URL.
pub fn captain_v3_png() -> Vec<u8> {
    let joy = png(3, &[]);
    let neutral = png(2, &[]);
    let assets = json!([
        { "type": "icon", "uri": "ccdefault:", "name": "main", "ext": "png" },
        { "type": "emotion", "uri": "__asset:0", "name": "joy", "ext": "png" },
        { "type": "emotion", "uri": format!("data:image/png;base64,{}", b64(&neutral)), "name": "neutral", "ext": "png" },
        { "type": "emotion", "uri": "https://example.org/anger.png", "name": "anger", "ext": "png" },
        { "type": "background", "uri": "embeded://assets/background/images/sea.png", "name": "main", "ext": "png" }
    ]);
    let card = v3(captain_data(), assets);
    png(
        8,
        &[
            ("ccv3", b64(card.to_string().as_bytes())),
            ("chara-ext-asset_:0", b64(&joy)),
        ],
    )
}
