//! A card's images: its portrait (V3's main icon, or the PNG itself) and
//! its emotion images, which become the persona's faces for its moods.
//! Only what the file itself carries is read: kibitz fetches nothing.

use std::collections::BTreeMap;

use super::spec::Asset;
use super::{CardError, ReadCard};
use crate::personas::Persona;

/// Image files by name, kept in the persona's `<id>.assets/` directory.
pub type Files = BTreeMap<String, Vec<u8>>;

pub const MAX_IMAGE_BYTES: usize = 2 * 1024 * 1024;
/// Assets a card may list: a portrait and a face per mood need a few dozen.
pub const MAX_ASSETS: usize = 64;
/// The images a card's assets come to, decoded, each reference counted: a
/// card may name one embedded image from thousands of assets, and every
/// node of a club reads the stored card again.
pub const MAX_ASSETS_BYTES: usize = 16 * 1024 * 1024;

/// The kind of image these bytes are, by their signature.
pub fn image_ext(bytes: &[u8]) -> Option<&'static str> {
    if bytes.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some("png")
    } else if bytes.starts_with(&[0xff, 0xd8, 0xff]) {
        Some("jpg")
    } else if bytes.starts_with(b"GIF87a") || bytes.starts_with(b"GIF89a") {
        Some("gif")
    } else if bytes.len() > 12 && &bytes[..4] == b"RIFF" && &bytes[8..12] == b"WEBP" {
        Some("webp")
    } else {
        None
    }
}

/// Sets the persona's portrait and emotion images from the card and
/// returns their files. A persona kibitz exported keeps its own emotions
/// and takes back only the images it names.
pub fn attach(
    read: &ReadCard,
    p: &mut Persona,
    from_kibitz: bool,
    notes: &mut Vec<String>,
) -> Result<Files, CardError> {
    let default_icon = vec![Asset {
        kind: "icon".into(),
        uri: "ccdefault:".into(),
        name: "main".into(),
        ext: "png".into(),
    }];
    let assets = read.card.data.assets.as_ref().unwrap_or(&default_icon);
    if assets.len() > MAX_ASSETS {
        let message = format!("lists {} assets; at most {MAX_ASSETS}", assets.len());
        return Err(CardError::field("data.assets", message));
    }
    let mut budget = Budget(MAX_ASSETS_BYTES);
    let mut files = Files::new();
    let icon = assets
        .iter()
        .enumerate()
        .filter(|(_, a)| a.kind == "icon")
        .max_by_key(|(i, a)| (a.name == "main", std::cmp::Reverse(*i)));
    let wanted_avatar = !from_kibitz || p.avatar.is_some();
    p.avatar = None;
    if let Some((i, icon)) = icon.filter(|_| wanted_avatar)
        && let Some((bytes, ext)) = resolve(read, icon, i, notes)?
    {
        budget.spend(&bytes)?;
        let name = format!("avatar.{ext}");
        files.insert(name.clone(), bytes);
        p.avatar = Some(name);
    }
    for (i, a) in assets
        .iter()
        .enumerate()
        .filter(|(_, a)| a.kind != "icon" && a.kind != "emotion")
    {
        notes.push(format!(
            "data.assets[{i}]: a {} image has no place in a chess club; kept out",
            a.kind
        ));
    }
    let mut faces: Vec<(String, Vec<u8>, &'static str)> = Vec::new();
    for (i, asset) in assets.iter().enumerate().filter(|(_, a)| a.kind == "emotion") {
        let Some(emotion) = emotion_name(&asset.name) else {
            notes.push(format!(
                "data.assets[{i}]: the emotion name '{}' is not a word; skipped",
                asset.name
            ));
            continue;
        };
        if faces.iter().any(|(e, ..)| *e == emotion) {
            continue;
        }
        if let Some((bytes, ext)) = resolve(read, asset, i, notes)? {
            budget.spend(&bytes)?;
            faces.push((emotion, bytes, ext));
        }
    }
    if from_kibitz {
        let named = std::mem::take(&mut p.expression_images);
        for (emotion, bytes, ext) in faces {
            if named.contains_key(&emotion) {
                let file = format!("{emotion}.{ext}");
                files.insert(file.clone(), bytes);
                p.expression_images.insert(emotion, file);
            }
        }
    } else if !faces.is_empty() {
        feel(p, &faces, notes);
        for (emotion, bytes, ext) in faces {
            let file = format!("{emotion}.{ext}");
            files.insert(file.clone(), bytes);
            p.expression_images.insert(emotion, file);
        }
    }
    Ok(files)
}

/// What is left of the decoded bytes a card's images may come to.
struct Budget(usize);

impl Budget {
    fn spend(&mut self, bytes: &[u8]) -> Result<(), CardError> {
        self.0 = self.0.checked_sub(bytes.len()).ok_or_else(|| {
            let message = format!("come to more than {MAX_ASSETS_BYTES} bytes of images, decoded");
            CardError::field("data.assets", message)
        })?;
        Ok(())
    }
}

/// The card's emotion images are the persona's emotions: "neutral" first
/// (where every match starts) if there is one; each chess mood the first
/// fitting name; lines meant for a mood the persona no longer has fit any.
fn feel(p: &mut Persona, faces: &[(String, Vec<u8>, &'static str)], notes: &mut Vec<String>) {
    let mut emotions: Vec<String> = faces.iter().map(|(e, ..)| e.clone()).collect();
    if let Some(i) = emotions.iter().position(|e| e == "neutral") {
        let neutral = emotions.remove(i);
        emotions.insert(0, neutral);
    }
    let pick = |mood: &str| {
        let prefs = mood_preferences();
        let wanted = prefs.get(mood).copied().unwrap_or_default();
        wanted
            .iter()
            .find(|w| emotions.iter().any(|e| e == *w))
            .map(|w| w.to_string())
            .unwrap_or_else(|| emotions[0].clone())
    };
    let m = &mut p.moods;
    for (slot, value) in [
        (&mut m.user_capture, "user_capture"),
        (&mut m.agent_capture, "agent_capture"),
        (&mut m.user_check, "user_check"),
        (&mut m.agent_check, "agent_check"),
        (&mut m.idle, "idle"),
        (&mut m.win, "win"),
        (&mut m.loss, "loss"),
        (&mut m.draw, "draw"),
    ] {
        *slot = pick(value);
    }
    m.compliment = Some(pick("compliment"));
    m.trash_talk = Some(pick("trash_talk"));
    p.expressions.retain(|e, _| emotions.contains(e));
    let keep = |l: &mut crate::personas::Line| {
        if l.mood.as_ref().is_some_and(|m| !emotions.contains(m)) {
            l.mood = None;
        }
    };
    p.chat.values_mut().flatten().for_each(keep);
    notes.push(format!("emotions from the card's images: {}", emotions.join(", ")));
    p.emotions = emotions;
}

/// A word for an emotion: lowercase letters, digits and '_'.
fn emotion_name(name: &str) -> Option<String> {
    let n: String = name.trim().to_lowercase().replace([' ', '-'], "_");
    let ok = !n.is_empty()
        && n.len() <= 32
        && n.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
    ok.then_some(n)
}

/// An asset's bytes and image kind, if the file carries them.
fn resolve(
    read: &ReadCard,
    asset: &Asset,
    i: usize,
    notes: &mut Vec<String>,
) -> Result<Option<(Vec<u8>, &'static str)>, CardError> {
    let field = format!("data.assets[{i}].uri");
    let bytes = if asset.uri == "ccdefault:" {
        match &read.image {
            Some(image) if asset.kind == "icon" => image.clone(),
            _ => return Ok(None),
        }
    } else if let Some(path) = asset.uri.strip_prefix("__asset:") {
        read.embedded.get(path).cloned().ok_or_else(|| {
            CardError::field(
                &field,
                format!("names the embedded asset '{path}', which the PNG does not hold"),
            )
        })?
    } else if let Some(data) = asset.uri.strip_prefix("data:") {
        let (_, payload) = data
            .split_once(";base64,")
            .ok_or_else(|| CardError::field(&field, "is a data: URL that is not base64"))?;
        super::decode_base64(payload.as_bytes()).map_err(|e| CardError::field(&field, e))?
    } else {
        let why = if asset.uri.starts_with("http") {
            "kibitz fetches nothing from the network"
        } else {
            "it is not in this file"
        };
        notes.push(format!("{field}: {} skipped ({why})", asset.kind));
        return Ok(None);
    };
    if bytes.len() > MAX_IMAGE_BYTES {
        return Err(CardError::field(
            &field,
            format!("is an image of {} bytes; at most {MAX_IMAGE_BYTES}", bytes.len()),
        ));
    }
    let ext = image_ext(&bytes).ok_or_else(|| CardError::field(&field, "is not a PNG, JPEG, GIF or WebP image"))?;
    Ok(Some((bytes, ext)))
}

/// Which of a persona's emotions each chess mood should be, among the
/// names a card's emotion images carry (SillyTavern's expression labels
/// first, then common short names).
pub fn mood_preferences() -> BTreeMap<&'static str, &'static [&'static str]> {
    BTreeMap::from([
        (
            "user_capture",
            &["annoyance", "anger", "angry", "disappointment", "surprise", "sadness"][..],
        ),
        (
            "agent_capture",
            &["excitement", "joy", "happy", "amusement", "pride"][..],
        ),
        (
            "user_check",
            &["surprise", "surprised", "nervousness", "fear", "confusion"][..],
        ),
        ("agent_check", &["pride", "excitement", "amusement", "joy", "happy"][..]),
        ("idle", &["annoyance", "curiosity", "neutral"][..]),
        ("win", &["joy", "happy", "pride", "excitement"][..]),
        ("loss", &["sadness", "sad", "disappointment", "grief", "remorse"][..]),
        ("draw", &["relief", "neutral", "approval"][..]),
        ("compliment", &["gratitude", "joy", "happy", "love", "admiration"][..]),
        (
            "trash_talk",
            &["annoyance", "anger", "angry", "amusement", "disapproval"][..],
        ),
    ])
}
