//! Loading and validating persona files. Every error names the file, the
//! field and the problem; the server refuses to start on any of them.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::model::Persona;

#[derive(Debug, thiserror::Error)]
pub enum PersonaError {
    #[error("cannot read personas from {path}: {source}")]
    Io { path: PathBuf, source: std::io::Error },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error("{path}: field `{field}`: {problem}")]
    Field {
        path: PathBuf,
        field: String,
        problem: String,
    },
    #[error("no persona files (*.toml) in {0}")]
    Empty(PathBuf),
    #[error("{path}: persona id `{id}` is already used by another file")]
    Duplicate { path: PathBuf, id: String },
}

const PLACEHOLDERS: [&str; 11] = [
    "player", "persona", "move", "piece", "result", "memory", "answer", "echo", "games", "absence", "them",
];
/// A persona imported with a thousand lines of lore fits.
const MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;
const MAX_BIOGRAPHY_CHARS: usize = 16_000;
/// A lore line is kept as a memory: `memory` holds it to its own limit.
pub const MAX_LORE_CHARS: usize = 500;
const IMAGE_EXTENSIONS: [&str; 5] = ["png", "jpg", "jpeg", "gif", "webp"];

/// Where a persona's images live: `<dir>/<id>.assets/`.
pub fn assets_dir(dir: &Path, id: &str) -> PathBuf {
    dir.join(format!("{id}.assets"))
}

/// Loads every `*.toml` in `dir`, sorted by file name.
pub fn load_dir(dir: &Path) -> Result<Vec<Persona>, PersonaError> {
    let personas: Vec<Persona> = load_dir_entries(dir)?.into_iter().map(|(_, p)| p).collect();
    if personas.is_empty() {
        return Err(PersonaError::Empty(dir.into()));
    }
    Ok(personas)
}

/// Every persona in `dir` with the file it came from.
pub fn load_dir_entries(dir: &Path) -> Result<Vec<(PathBuf, Persona)>, PersonaError> {
    let io = |source| PersonaError::Io {
        path: dir.into(),
        source,
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map_err(io)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    let mut ids = HashSet::new();
    let mut personas = Vec::new();
    for path in files {
        let persona = load_file(&path)?;
        if !ids.insert(persona.id.clone()) {
            return Err(PersonaError::Duplicate {
                path,
                id: persona.id.to_string(),
            });
        }
        personas.push((path, persona));
    }
    Ok(personas)
}

pub fn load_file(path: &Path) -> Result<Persona, PersonaError> {
    let io = |source| PersonaError::Io {
        path: path.into(),
        source,
    };
    let size = std::fs::metadata(path).map_err(io)?.len();
    if size > MAX_FILE_BYTES {
        return Err(PersonaError::Invalid {
            path: path.into(),
            message: format!("file is {size} bytes, limit {MAX_FILE_BYTES}"),
        });
    }
    let text = std::fs::read_to_string(path).map_err(io)?;
    let persona: Persona = toml::from_str(&text).map_err(|e| PersonaError::Invalid {
        path: path.into(),
        // toml's message names the missing, unknown or mistyped field and its line.
        message: e.to_string().trim().replace('\n', " "),
    })?;
    let dir = path.parent().unwrap_or(Path::new("."));
    validate(&persona)
        .and_then(|()| check_images(&persona, &assets_dir(dir, &persona.id)))
        .map_err(|(field, problem)| PersonaError::Field {
            path: path.into(),
            field,
            problem,
        })?;
    Ok(persona)
}

type Problem = (String, String);

pub(crate) fn validate(p: &Persona) -> Result<(), Problem> {
    let bad = |field: &str, problem: String| Err((field.to_string(), problem));
    if p.id.is_empty()
        || !p
            .id
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return bad("id", format!("'{}' must be lowercase letters, digits and '-'", p.id));
    }
    for (field, value) in [("name", &p.name), ("biography", &p.biography), ("voice", &p.voice)] {
        if value.trim().is_empty() {
            return bad(field, "must not be empty".into());
        }
    }
    if p.name.chars().count() > 100 {
        return bad("name", "is over 100 characters".into());
    }
    if p.biography.chars().count() > MAX_BIOGRAPHY_CHARS {
        return bad("biography", format!("is over {MAX_BIOGRAPHY_CHARS} characters"));
    }
    if !(400..=3200).contains(&p.elo) {
        return bad("elo", format!("{} is outside 400..=3200", p.elo));
    }
    if p.tones.is_empty() {
        return bad("tones", "list at least one tone".into());
    }
    if p.emotions.is_empty() {
        return bad(
            "emotions",
            "list at least one emotion (the first is the starting mood)".into(),
        );
    }
    if p.chattiness == 0 {
        return bad("chattiness", "must be at least 1".into());
    }
    for (emotion, face) in &p.expressions {
        if !p.emotions.contains(emotion) {
            return bad(
                &format!("expressions.{emotion}"),
                "is not one of the declared emotions".into(),
            );
        }
        if face.trim().is_empty() || face.chars().count() > 8 {
            return bad(&format!("expressions.{emotion}"), "must be 1 to 8 characters".into());
        }
    }
    validate_idle(p)?;
    p.familiarity
        .check()
        .map_err(|problem| ("familiarity".to_string(), problem))?;
    validate_lore(p)?;
    validate_images(p)?;
    validate_lines(p)?;
    validate_chat(p)?;
    for (event, mood) in p.moods.all() {
        if !p.emotions.iter().any(|e| e == mood) {
            return bad(
                &format!("moods.{event}"),
                format!("'{mood}' is not one of the declared emotions"),
            );
        }
    }
    Ok(())
}

/// `[chat]` keys are intents; an intent that asks must be answered
/// ({answer}) and one that tells must be heard ({echo}).
fn validate_chat(p: &Persona) -> Result<(), Problem> {
    use crate::listen::Intent;
    for (key, lines) in &p.chat {
        let field = format!("chat.{key}");
        // Tiredness is heard as an apology but may be worded on its own;
        // so may news (a congratulation needs no echo of what was told).
        let refined = match key.as_str() {
            crate::listen::TIREDNESS => Some(Intent::Apology),
            crate::listen::PASSING => Some(Intent::OffTopic),
            news if crate::listen::news::News::is_key(news) => Some(Intent::OffTopic),
            _ => None,
        };
        let Some(intent) = Intent::parse(key).or(refined) else {
            let names: Vec<&str> = Intent::ALL.iter().map(|i| i.as_str()).collect();
            return Err((
                field,
                format!(
                    "is not an intent (one of: {}, tiredness, passing, good_news, bad_news, news_ahead, news_ahead_theirs)",
                    names.join(", ")
                ),
            ));
        };
        let needed = match intent {
            Intent::AsksMemory | Intent::AsksPersona | Intent::AsksPosition | Intent::DrawRequest => Some("{answer}"),
            Intent::SelfDisclosure | Intent::Preference => Some("{echo}"),
            _ => None,
        };
        if let Some(needed) = needed
            && let Some(i) = lines.iter().position(|l| !l.text.contains(needed))
        {
            return Err((format!("{field}[{i}].text"), format!("must say {needed}")));
        }
    }
    Ok(())
}

fn validate_lore(p: &Persona) -> Result<(), Problem> {
    for (i, lore) in p.lore.iter().enumerate() {
        let at = format!("lore[{i}]");
        let chars = lore.text.trim().chars().count();
        if chars == 0 || chars > MAX_LORE_CHARS {
            return Err((format!("{at}.text"), format!("must be 1..={MAX_LORE_CHARS} characters")));
        }
        if !(0.0..=1.0).contains(&lore.importance) {
            return Err((
                format!("{at}.importance"),
                format!("{} is outside 0..=1", lore.importance),
            ));
        }
        if let Some(k) = lore
            .keys
            .iter()
            .position(|k| k.trim().is_empty() || k.chars().count() > 100)
        {
            return Err((format!("{at}.keys[{k}]"), "must be 1..=100 characters".into()));
        }
    }
    for (i, example) in p.examples.iter().enumerate() {
        check_placeholders(example).map_err(|problem| (format!("examples[{i}]"), problem))?;
    }
    Ok(())
}

/// Image names are plain file names with an image extension, one per
/// declared emotion.
fn validate_images(p: &Persona) -> Result<(), Problem> {
    let named = p
        .expression_images
        .iter()
        .map(|(e, f)| (format!("expression_images.{e}"), Some(e), f));
    for (field, emotion, file) in p.avatar.iter().map(|f| ("avatar".to_string(), None, f)).chain(named) {
        if emotion.is_some_and(|e| !p.emotions.contains(e)) {
            return Err((field, "is not one of the declared emotions".into()));
        }
        let ext = file.rsplit_once('.').map(|(_, x)| x.to_ascii_lowercase());
        let plain = !file.starts_with('.')
            && file
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'));
        if !plain || !ext.is_some_and(|x| IMAGE_EXTENSIONS.contains(&x.as_str())) {
            return Err((
                field,
                format!("'{file}' must be a file name ending in .png, .jpg, .gif or .webp"),
            ));
        }
    }
    Ok(())
}

fn check_images(p: &Persona, assets: &Path) -> Result<(), Problem> {
    let named = p
        .expression_images
        .iter()
        .map(|(e, f)| (format!("expression_images.{e}"), f));
    for (field, file) in p.avatar.iter().map(|f| ("avatar".to_string(), f)).chain(named) {
        if !assets.join(file).is_file() {
            return Err((field, format!("{} does not exist", assets.join(file).display())));
        }
    }
    Ok(())
}

fn validate_idle(p: &Persona) -> Result<(), Problem> {
    let idle = &p.idle;
    let bad = |field: &str, problem: String| Err((format!("idle.{field}"), problem));
    if !(idle.first_after_secs >= 1.0 && idle.first_after_secs <= 3600.0) {
        return bad(
            "first_after_secs",
            format!("{} is outside 1..=3600", idle.first_after_secs),
        );
    }
    if !(idle.escalation >= 1.0 && idle.escalation <= 10.0) {
        return bad("escalation", format!("{} is outside 1..=10", idle.escalation));
    }
    if idle.max_nudges > 20 {
        return bad("max_nudges", format!("{} is over 20", idle.max_nudges));
    }
    Ok(())
}

fn validate_lines(p: &Persona) -> Result<(), Problem> {
    let events = p.lines.all().map(|(event, lines)| (format!("lines.{event}"), lines));
    let chat = p
        .chat
        .iter()
        .map(|(intent, lines)| (format!("chat.{intent}"), lines.as_slice()));
    // A stage may leave a kind of line to the stage before it.
    let staged = p.stages.iter().flat_map(|(stage, lines)| {
        lines
            .all()
            .map(|(event, lines)| (format!("stages.{}.{event}", stage.as_str()), lines))
    });
    let takeback = [
        ("takeback.accept".to_string(), p.takeback.accept.as_slice()),
        ("takeback.refuse".to_string(), p.takeback.refuse.as_slice()),
    ];
    for (field, lines) in events.into_iter().chain(chat).chain(staged).chain(takeback) {
        if lines.is_empty() && !field.starts_with("stages.") && !field.starts_with("takeback.") {
            return Err((field, "give at least one line".into()));
        }
        for (i, line) in lines.iter().enumerate() {
            let at = format!("{field}[{i}]");
            if !p.tones.contains(&line.tone) {
                return Err((
                    format!("{at}.tone"),
                    format!("'{}' is not one of the persona's tones", line.tone),
                ));
            }
            if let Some(mood) = line.mood.as_ref().filter(|m| !p.emotions.contains(m)) {
                return Err((
                    format!("{at}.mood"),
                    format!("'{mood}' is not one of the declared emotions"),
                ));
            }
            if line.text.trim().is_empty() || line.text.len() > 500 {
                return Err((format!("{at}.text"), "must be 1..=500 characters".into()));
            }
            check_placeholders(&line.text).map_err(|problem| (format!("{at}.text"), problem))?;
        }
    }
    Ok(())
}

fn check_placeholders(text: &str) -> Result<(), String> {
    let mut rest = text;
    while let Some(start) = rest.find('{') {
        let after = &rest[start + 1..];
        let end = after.find('}').ok_or("has an unclosed '{'")?;
        let name = &after[..end];
        if !PLACEHOLDERS.contains(&name) {
            return Err(format!("unknown placeholder {{{name}}}; use one of {PLACEHOLDERS:?}"));
        }
        rest = &after[end + 1..];
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::personas::Line;

    #[test]
    fn placeholders_are_checked() {
        assert!(check_placeholders("Hello {player}, {move}!").is_ok());
        assert!(check_placeholders("Hello {name}").unwrap_err().contains("{name}"));
        assert!(check_placeholders("Hello {player").is_err());
    }

    #[test]
    fn chat_lines_are_keyed_by_intent_and_answer_what_they_are_asked() {
        let mut pip = load_dir(&crate::personas::shipped_dir())
            .unwrap()
            .into_iter()
            .find(|p| p.id == "pip")
            .unwrap();
        assert!(validate(&pip).is_ok());
        let line = |text: &str| Line {
            text: text.into(),
            tone: pip.tones[0].clone(),
            mood: None,
        };
        pip.chat.insert("gossip".into(), vec![line("Psst!")]);
        let (field, problem) = validate(&pip).unwrap_err();
        assert_eq!(field, "chat.gossip");
        assert!(problem.contains("asks_memory"), "{problem}");
        pip.chat.remove("gossip");
        pip.chat
            .insert("asks_memory".into(), vec![line("I remember everything!")]);
        assert_eq!(validate(&pip).unwrap_err().0, "chat.asks_memory[0].text");
        pip.chat.insert("asks_memory".into(), vec![]);
        assert_eq!(validate(&pip).unwrap_err().0, "chat.asks_memory");
        pip.chat.remove("asks_memory");
        let moody = Line {
            mood: Some("grumpy".into()),
            ..line("Hmph.")
        };
        pip.chat.insert("trash_talk".into(), vec![moody]);
        let (field, problem) = validate(&pip).unwrap_err();
        assert_eq!(field, "chat.trash_talk[0].mood");
        assert!(problem.contains("grumpy"), "{problem}");
    }

    #[test]
    fn shipped_personas_load() {
        let personas = load_dir(&crate::personas::shipped_dir()).unwrap();
        assert!(personas.len() >= 3);
    }
}
