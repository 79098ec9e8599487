//! A card becomes a persona: its words where it has them, kibitz's chess
//! defaults (`defaults.toml`, or the flags) where it has none. A card kibitz
//! exported carries the whole persona under `extensions.kibitz`: that is the
//! starting point, and only the card fields another tool changed replace it.

use super::assets::{self, Files};
use super::spec::{CardData, LoreEntry};
use super::text::{self, MAX_LINE_CHARS};
use super::{CardError, ReadCard, export};
use crate::chess::engine::Style;
use crate::personas::{BrainKind, CardOrigin, Line, Lore, Persona};

/// What the command line or the admin's request sets beyond the card.
#[derive(Debug, Clone, Default)]
pub struct ImportOptions {
    pub id: Option<String>,
    pub elo: Option<u32>,
    pub style: Option<Style>,
    pub brain: Option<BrainKind>,
}

/// A persona ready to install, its image files (by file name, for
/// `<id>.assets/`), and what the import decided that the card did not say.
#[derive(Debug, Clone)]
pub struct Imported {
    pub persona: Persona,
    pub files: Files,
    pub notes: Vec<String>,
}

const DEFAULTS: &str = include_str!("defaults.toml");
/// Lines of lore one lorebook entry may become (each at most a memory's length).
const MAX_PIECES_PER_ENTRY: usize = 8;
const MAX_KEYS: usize = 32;

pub fn persona(read: ReadCard, opts: &ImportOptions) -> Result<Imported, CardError> {
    let data = &read.card.data;
    let name = data.name.trim().to_string();
    if name.is_empty() {
        return Err(CardError::field("data.name", "is empty: a persona needs a name"));
    }
    let mut notes = Vec::new();
    let base = kibitz_base(data)?;
    let mut p = match &base {
        Some(p) => p.clone(),
        None => defaults(data, &mut notes),
    };
    // What this card would say if kibitz had written it from `p`: a field
    // that still says so keeps the persona's own (typed) version.
    let shipped = base.as_ref().map(export::text_fields);
    let changed = |pick: fn(&CardData) -> String| shipped.as_ref().is_none_or(|s| pick(s) != pick(data));
    p.name = name.clone();
    if changed(|d| d.description.clone()) || changed(|d| d.personality.clone()) {
        p.biography = biography(data, &name)?;
        p.voice = match text::plain(&data.personality, &name) {
            v if v.is_empty() => format!("{name} speaks as the biography suggests, in a line or two."),
            v => v,
        };
    }
    if changed(|d| d.mes_example.clone()) {
        p.examples = text::examples(&data.mes_example);
    }
    if changed(greetings_of) {
        p.lines.greeting = greetings(data, &p.tones[0], &mut notes)?;
    }
    let book_changed = shipped.as_ref().is_none_or(|s| {
        s.character_book.as_ref().map(|b| &b.entries) != data.character_book.as_ref().map(|b| &b.entries)
    });
    if book_changed {
        p.lore = lore(data, &name, &mut notes)?;
    }
    if base.is_none() {
        p.card = Some(CardOrigin {
            creator: data.creator.clone(),
            character_version: data.character_version.clone(),
            tags: data.tags.clone(),
            creator_notes: data.creator_notes.clone(),
        });
    }
    p.id = match &opts.id {
        Some(id) => id.as_str().into(),
        None if base.is_some() => p.id,
        None => slug(&name)
            .ok_or_else(|| CardError::field("data.name", "has no letters or digits to make an id from; give --id"))?
            .into(),
    };
    chess_fields(&mut p, opts, base.is_some(), &mut notes);
    let files = assets::attach(&read, &mut p, base.is_some(), &mut notes)?;
    crate::personas::validate(&p)
        .map_err(|(field, problem)| CardError::field(format!("persona `{field}`"), problem))?;
    Ok(Imported {
        persona: p,
        files,
        notes,
    })
}

/// The persona a kibitz export carries, if this card is one.
fn kibitz_base(data: &CardData) -> Result<Option<Persona>, CardError> {
    let Some(persona) = data.extensions.get("kibitz").and_then(|k| k.get("persona")) else {
        return Ok(None);
    };
    serde_path_to_error::deserialize(persona.clone())
        .map(Some)
        .map_err(|e| {
            CardError::field(
                format!("data.extensions.kibitz.persona.{}", e.path()),
                e.into_inner().to_string(),
            )
        })
}

fn defaults(data: &CardData, notes: &mut Vec<String>) -> Persona {
    let mut p: Persona = toml::from_str(DEFAULTS).expect("defaults.toml is a valid persona");
    // SillyTavern keeps how often a character speaks in group chats as 0..1.
    let talk = data.extensions.get("talkativeness").and_then(|t| match t {
        serde_json::Value::String(s) => s.parse::<f64>().ok(),
        other => other.as_f64(),
    });
    if let Some(t) = talk.filter(|t| *t > 0.0 && *t <= 1.0) {
        p.chattiness = (1.0 / t).round().clamp(1.0, 10.0) as u32;
        notes.push(format!(
            "talks on every {} quiet move(s), from the card's talkativeness {t}",
            p.chattiness
        ));
    }
    p
}

fn chess_fields(p: &mut Persona, opts: &ImportOptions, from_kibitz: bool, notes: &mut Vec<String>) {
    let said = |what: &str, value: String, flag: &str| {
        if from_kibitz {
            format!("{what} {value}, as the card's kibitz section says")
        } else {
            format!("{what} {value} (kibitz's default; the {flag} option sets it)")
        }
    };
    match opts.elo {
        Some(elo) => p.elo = elo,
        None => notes.push(said("plays at", format!("{} Elo", p.elo), "elo")),
    }
    match opts.style {
        Some(style) => p.style = style,
        None => notes.push(said(
            "plays in the",
            format!("{:?} style", p.style).to_lowercase(),
            "style",
        )),
    }
    match &opts.brain {
        Some(brain) => p.brain = brain.clone(),
        None => notes.push(said(
            "moves with the",
            format!("{} brain", String::from(p.brain.clone())),
            "brain",
        )),
    }
}

fn biography(data: &CardData, name: &str) -> Result<String, CardError> {
    let bio = [&data.description, &data.personality]
        .into_iter()
        .map(|t| text::plain(t, name))
        .find(|t| !t.is_empty())
        .ok_or_else(|| {
            CardError::field(
                "data.description",
                "is empty, and so is personality: a persona needs a biography",
            )
        })?;
    if bio.chars().count() > text::MAX_BIOGRAPHY_CHARS {
        return Err(CardError::field(
            "data.description",
            format!(
                "is {} characters; at most {}",
                bio.chars().count(),
                text::MAX_BIOGRAPHY_CHARS
            ),
        ));
    }
    Ok(bio)
}

fn greetings_of(d: &CardData) -> String {
    std::iter::once(&d.first_mes)
        .chain(&d.alternate_greetings)
        .cloned()
        .collect::<Vec<_>>()
        .join("\u{1f}")
}

/// `first_mes` and `alternate_greetings` as greeting lines; a long one is
/// cut at a sentence end (a greeting is said in a chat bubble).
fn greetings(data: &CardData, tone: &str, notes: &mut Vec<String>) -> Result<Vec<Line>, CardError> {
    let mut lines = Vec::new();
    let all = std::iter::once(("data.first_mes".to_string(), &data.first_mes)).chain(
        data.alternate_greetings
            .iter()
            .enumerate()
            .map(|(i, g)| (format!("data.alternate_greetings[{i}]"), g)),
    );
    for (field, greeting) in all {
        let template = text::template(greeting);
        if template.trim().is_empty() {
            continue;
        }
        let (kept, cut) = text::clip(&template, MAX_LINE_CHARS);
        if cut {
            notes.push(format!(
                "{field} was cut to its first {} characters",
                kept.chars().count()
            ));
        }
        lines.push(Line {
            text: kept,
            tone: tone.to_string(),
            mood: None,
        });
    }
    if lines.is_empty() {
        let defaults: Persona = toml::from_str(DEFAULTS).expect("defaults.toml is a valid persona");
        notes.push("the card has no greeting (first_mes): a plain one is used".into());
        return Ok(defaults.lines.greeting);
    }
    Ok(lines)
}

/// A lorebook's enabled entries as lore lines: the keys stay as the words
/// that bring a line up; `constant` entries matter most, then by
/// `insertion_order` (later ones weigh more, as they do in a prompt), a
/// `selective` one a little less (it needs a second key).
fn lore(data: &CardData, name: &str, notes: &mut Vec<String>) -> Result<Vec<Lore>, CardError> {
    let Some(book) = &data.character_book else {
        return Ok(Vec::new());
    };
    let enabled: Vec<(usize, &LoreEntry)> = book.entries.iter().enumerate().filter(|(_, e)| e.enabled).collect();
    let disabled = book.entries.len() - enabled.len();
    if disabled > 0 {
        notes.push(format!(
            "{disabled} disabled lorebook entr{} left out",
            if disabled == 1 { "y" } else { "ies" }
        ));
    }
    let mut orders: Vec<i64> = enabled.iter().map(|(_, e)| e.insertion_order).collect();
    orders.sort_unstable();
    orders.dedup();
    let mut out = Vec::new();
    for (i, entry) in enabled {
        let field = format!("data.character_book.entries[{i}]");
        let content = text::plain(&text::without_decorators(&entry.content), name);
        if content.is_empty() {
            continue;
        }
        let pieces = text::pieces(&content, crate::personas::MAX_LORE_CHARS);
        if pieces.len() > MAX_PIECES_PER_ENTRY {
            return Err(CardError::field(
                format!("{field}.content"),
                format!(
                    "is {} characters; at most {MAX_PIECES_PER_ENTRY} lines of lore",
                    content.chars().count()
                ),
            ));
        }
        if pieces.len() > 1 {
            notes.push(format!("{field} became {} lines of lore", pieces.len()));
        }
        let keys = entry_keys(entry, &field, notes)?;
        let rank = orders.iter().position(|o| *o == entry.insertion_order).unwrap_or(0) as f32;
        let spread = (orders.len().max(2) - 1) as f32;
        let importance = match entry.constant {
            Some(true) => 1.0,
            _ => {
                0.5 + 0.4 * rank / spread
                    - if entry.selective == Some(true) && !entry.secondary_keys.is_empty() {
                        0.1
                    } else {
                        0.0
                    }
            }
        };
        let importance = (importance * 100.0).round() / 100.0;
        out.extend(pieces.into_iter().map(|text| Lore {
            text,
            keys: keys.clone(),
            importance,
        }));
    }
    Ok(out)
}

fn entry_keys(entry: &LoreEntry, field: &str, notes: &mut Vec<String>) -> Result<Vec<String>, CardError> {
    if entry.use_regex {
        notes.push(format!(
            "{field}: its keys are regular expressions; kibitz matches words, so it is recalled by meaning"
        ));
        return Ok(Vec::new());
    }
    let mut keys: Vec<String> = Vec::new();
    for (k, key) in entry.keys.iter().enumerate() {
        let key = key.trim();
        if key.chars().count() > 100 {
            return Err(CardError::field(format!("{field}.keys[{k}]"), "is over 100 characters"));
        }
        if !key.is_empty() && !keys.iter().any(|have| have.eq_ignore_ascii_case(key)) {
            keys.push(key.to_string());
        }
    }
    if keys.len() > MAX_KEYS {
        notes.push(format!("{field}: only its first {MAX_KEYS} keys are kept"));
        keys.truncate(MAX_KEYS);
    }
    Ok(keys)
}

/// A persona id from a name: lowercase ASCII letters and digits, words
/// joined by '-' ("Zoë O'Neil" -> "zo-o-neil").
pub fn slug(name: &str) -> Option<String> {
    let mut id = String::new();
    for c in name.chars().flat_map(char::to_lowercase) {
        if c.is_ascii_alphanumeric() {
            id.push(c);
        } else if !id.ends_with('-') && !id.is_empty() {
            id.push('-');
        }
        if id.len() >= 40 {
            break;
        }
    }
    let id = id.trim_end_matches('-').to_string();
    (!id.is_empty()).then_some(id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_come_from_names() {
        assert_eq!(slug("Zoë O'Neil").as_deref(), Some("zo-o-neil"));
        assert_eq!(slug("  Captain   Hook!! ").as_deref(), Some("captain-hook"));
        assert_eq!(slug("東京"), None);
    }

    #[test]
    fn the_defaults_are_a_valid_persona() {
        let p: Persona = toml::from_str(DEFAULTS).unwrap();
        crate::personas::validate(&p).unwrap();
        for (mood, _) in assets::mood_preferences() {
            assert!(p.moods.all().iter().any(|(m, _)| *m == mood), "{mood} is a mood");
        }
    }
}
