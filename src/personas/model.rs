use super::brain::BrainKind;
use serde::{Deserialize, Serialize};

use crate::chess::engine::Style;
use crate::familiarity::{Stage, Thresholds};
use crate::ids::PersonaId;

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Persona {
    pub id: PersonaId,
    pub name: String,
    pub biography: String,
    /// How it speaks, in a sentence (for prompts and for people).
    pub voice: String,
    pub elo: u32,
    pub style: Style,
    /// Who chooses its moves: `engine` (default), `llm`, or `pipeline:p+e+pl+m`.
    #[serde(default)]
    pub brain: BrainKind,
    /// This persona's own preferences for its language model, if any.
    #[serde(default)]
    pub llm: PersonaLlm,
    /// Tones its messages may carry (playful, sharp, respectful, dismissive...).
    pub tones: Vec<String>,
    /// Moods it can show; the first is where every match starts.
    pub emotions: Vec<String>,
    /// How each mood looks on the page (an emoji or short glyph per emotion).
    #[serde(default)]
    pub expressions: std::collections::BTreeMap<String, String>,
    pub idle: IdlePolicy,
    /// Speak on a quiet user move only every this many moves.
    pub chattiness: u32,
    /// Shared, read-only memories every player may hear about.
    pub lore: Vec<Lore>,
    /// Dialogues in its voice, for the language model (a card's `mes_example`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub examples: Vec<String>,
    /// Its portrait, a file in `<id>.assets/` beside the persona file.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avatar: Option<String>,
    /// An image per emotion, files in `<id>.assets/`; the page shows it
    /// instead of the emotion's glyph.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub expression_images: std::collections::BTreeMap<String, String>,
    /// Where an imported persona came from (its card's credits).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub card: Option<CardOrigin>,
    pub lines: Lines,
    /// Its words per chat intent (`listen::Intent` names: `asks_memory`,
    /// `compliment`, ...), optional: an intent it does not word gets a
    /// plain line. Besides {player} and {persona}: {answer} (what is known
    /// that answers a question) and {echo} (what the player told, said back).
    #[serde(default)]
    pub chat: std::collections::BTreeMap<String, Vec<Line>>,
    pub moods: Moods,
    /// How fast it warms to a player: the points where each stage of
    /// familiarity begins, and after how many days an absence is noticed.
    #[serde(default)]
    pub familiarity: Thresholds,
    /// Its words per stage of familiarity (`[stages.regular]`, ...). A
    /// stage it does not word speaks as the one before it; a stranger, or
    /// a persona with no stage lines, speaks its plain lines. Besides the
    /// usual placeholders: {games} (games finished together) and {absence}
    /// ("three weeks").
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub stages: std::collections::BTreeMap<Stage, StageLines>,
    /// Whether it lets the player take a move back, and its words for it.
    #[serde(default)]
    pub takeback: TakebackPolicy,
    /// How many hints it gives in a game.
    #[serde(default)]
    pub hints: HintPolicy,
    /// `[lichess]`: how it narrows the challenges its BOT account takes.
    #[serde(default)]
    pub lichess: LichessLimits,
}

/// `[lichess]`: what this persona adds to the configuration's challenge
/// policy; each limit only narrows it (a slower thinker asks for longer
/// games, a shy one for fewer at once).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LichessLimits {
    pub min_initial_secs: Option<u32>,
    pub max_initial_secs: Option<u32>,
    pub max_games: Option<u32>,
    pub min_rating: Option<u32>,
    pub max_rating: Option<u32>,
    pub rated: Option<bool>,
    pub casual: Option<bool>,
    pub bots: Option<bool>,
}

/// `[hints]`: how many engine-checked hints it gives in one game (0:
/// none); each is a full-strength search.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HintPolicy {
    pub per_game: u32,
}

impl Default for HintPolicy {
    fn default() -> Self {
        HintPolicy { per_game: 5 }
    }
}

/// `[takeback]`: how many takebacks it grants in a game (0: never), whether
/// only for a move the engine calls a mistake or a blunder, and its words
/// when it grants one and when it does not ({move}: the moves taken back).
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TakebackPolicy {
    pub per_game: u32,
    pub only_blunders: bool,
    pub accept: Vec<Line>,
    pub refuse: Vec<Line>,
}

/// What a persona says to a player at one stage of familiarity.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StageLines {
    /// Lines with {memory} greet when a memory of the player came up,
    /// lines without it when none did.
    pub greeting: Vec<Line>,
    /// The greeting after a long absence (it may say {absence}).
    pub absence: Vec<Line>,
    /// At the end of a game the player did not lose, and to a goodbye.
    pub farewell: Vec<Line>,
    /// To the player's blunder: the teasing a friend may afford.
    pub tease: Vec<Line>,
    /// At the end of a game the player lost.
    pub console: Vec<Line>,
}

/// The kinds of stage lines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StageEvent {
    Greeting,
    Absence,
    Farewell,
    Tease,
    Console,
}

impl StageLines {
    pub fn for_event(&self, event: StageEvent) -> &[Line] {
        match event {
            StageEvent::Greeting => &self.greeting,
            StageEvent::Absence => &self.absence,
            StageEvent::Farewell => &self.farewell,
            StageEvent::Tease => &self.tease,
            StageEvent::Console => &self.console,
        }
    }

    /// Every (field name, lines) pair, for validation.
    pub fn all(&self) -> [(&'static str, &[Line]); 5] {
        [
            ("greeting", &self.greeting),
            ("absence", &self.absence),
            ("farewell", &self.farewell),
            ("tease", &self.tease),
            ("console", &self.console),
        ]
    }
}

/// One line of lore. In a persona file a plain string, or a table with the
/// words that bring it up when the player says them (a lorebook's keys) and
/// how much it matters (0..=1, 1 when not given).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(from = "LoreRepr", into = "LoreRepr")]
pub struct Lore {
    pub text: String,
    pub keys: Vec<String>,
    pub importance: f32,
}

#[derive(Serialize, Deserialize)]
#[serde(untagged)]
enum LoreRepr {
    Text(String),
    Entry(LoreTable),
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LoreTable {
    text: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    keys: Vec<String>,
    #[serde(default = "full")]
    importance: f32,
}

fn full() -> f32 {
    1.0
}

impl From<LoreRepr> for Lore {
    fn from(r: LoreRepr) -> Lore {
        match r {
            LoreRepr::Text(text) => Lore::from(text),
            LoreRepr::Entry(t) => Lore {
                text: t.text,
                keys: t.keys,
                importance: t.importance,
            },
        }
    }
}

impl From<Lore> for LoreRepr {
    fn from(l: Lore) -> LoreRepr {
        if l.keys.is_empty() && l.importance == 1.0 {
            return LoreRepr::Text(l.text);
        }
        LoreRepr::Entry(LoreTable {
            text: l.text,
            keys: l.keys,
            importance: l.importance,
        })
    }
}

impl From<String> for Lore {
    fn from(text: String) -> Lore {
        Lore {
            text,
            keys: Vec::new(),
            importance: 1.0,
        }
    }
}

/// A card's credits, kept so an export gives them back.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CardOrigin {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub creator: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub character_version: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub creator_notes: String,
}

/// `[llm]` in a persona card: an endpoint to try first (by name) and its own
/// sampling for the main agent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PersonaLlm {
    pub endpoint: Option<String>,
    pub temperature: Option<f32>,
    pub max_tokens: Option<u32>,
}

impl PersonaLlm {
    /// The role's sampling with this persona's preferences on top, within
    /// what the club configured: a card (anyone's file) may ask for shorter
    /// answers, never longer ones, and a temperature from 0 to 2.
    pub fn sampling(&self, role: crate::config::RoleConfig) -> crate::config::RoleConfig {
        let temperature = self.temperature.filter(|t| t.is_finite()).map(|t| t.clamp(0.0, 2.0));
        crate::config::RoleConfig {
            temperature: temperature.unwrap_or(role.temperature),
            max_tokens: self.max_tokens.map_or(role.max_tokens, |t| t.clamp(1, role.max_tokens)),
        }
    }
}

/// When the persona nudges a user who is taking long: first after
/// `first_after_secs`, then each delay times `escalation`, at most `max_nudges`.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IdlePolicy {
    pub first_after_secs: f64,
    pub escalation: f64,
    pub max_nudges: u32,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Line {
    pub text: String,
    pub tone: String,
    /// Said only in this mood (one of the persona's emotions); a line
    /// without one fits any mood the card words no line for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mood: Option<String>,
}

/// Whether `text` was said from `template`: its fixed words, in order,
/// with anything where the placeholders were.
pub fn said_from(template: &str, text: &str) -> bool {
    let mut parts: Vec<&str> = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        parts.push(&rest[..open]);
        rest = rest[open..].find('}').map_or("", |close| &rest[open + close + 1..]);
    }
    parts.push(rest);
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if parts.len() == 1 {
        return text == template;
    }
    if !text.starts_with(first) || !text.ends_with(last) || text.len() < first.len() + last.len() {
        return false;
    }
    let mut at = first.len();
    for part in &parts[1..parts.len() - 1] {
        match text[at..text.len() - last.len()].find(part) {
            Some(i) => at += i + part.len(),
            None => return false,
        }
    }
    true
}

/// What the scripted brain may say, per event. Placeholders: {player},
/// {persona}, {move}, {piece}, {result}, {memory}.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Lines {
    pub greeting: Vec<Line>,
    pub greeting_returning: Vec<Line>,
    pub user_move: Vec<Line>,
    pub user_capture: Vec<Line>,
    pub user_check: Vec<Line>,
    pub agent_capture: Vec<Line>,
    pub agent_check: Vec<Line>,
    pub idle: Vec<Line>,
    pub chat_reply: Vec<Line>,
    pub draw_accepted: Vec<Line>,
    pub draw_declined: Vec<Line>,
    pub win: Vec<Line>,
    pub loss: Vec<Line>,
    pub draw: Vec<Line>,
}

/// The mood each event puts the persona in.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Moods {
    pub user_capture: String,
    pub agent_capture: String,
    pub user_check: String,
    pub agent_check: String,
    pub idle: String,
    pub win: String,
    pub loss: String,
    pub draw: String,
    /// What a compliment and trash talk do to it (optional: unmoved).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compliment: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trash_talk: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineEvent {
    Greeting,
    GreetingReturning,
    UserMove,
    UserCapture,
    UserCheck,
    AgentCapture,
    AgentCheck,
    Idle,
    ChatReply,
    DrawAccepted,
    DrawDeclined,
    Win,
    Loss,
    Draw,
}

impl Lines {
    pub fn for_event(&self, event: LineEvent) -> &[Line] {
        match event {
            LineEvent::Greeting => &self.greeting,
            LineEvent::GreetingReturning => &self.greeting_returning,
            LineEvent::UserMove => &self.user_move,
            LineEvent::UserCapture => &self.user_capture,
            LineEvent::UserCheck => &self.user_check,
            LineEvent::AgentCapture => &self.agent_capture,
            LineEvent::AgentCheck => &self.agent_check,
            LineEvent::Idle => &self.idle,
            LineEvent::ChatReply => &self.chat_reply,
            LineEvent::DrawAccepted => &self.draw_accepted,
            LineEvent::DrawDeclined => &self.draw_declined,
            LineEvent::Win => &self.win,
            LineEvent::Loss => &self.loss,
            LineEvent::Draw => &self.draw,
        }
    }

    /// Every (field name, lines) pair, for validation.
    pub fn all(&self) -> [(&'static str, &[Line]); 14] {
        [
            ("greeting", &self.greeting),
            ("greeting_returning", &self.greeting_returning),
            ("user_move", &self.user_move),
            ("user_capture", &self.user_capture),
            ("user_check", &self.user_check),
            ("agent_capture", &self.agent_capture),
            ("agent_check", &self.agent_check),
            ("idle", &self.idle),
            ("chat_reply", &self.chat_reply),
            ("draw_accepted", &self.draw_accepted),
            ("draw_declined", &self.draw_declined),
            ("win", &self.win),
            ("loss", &self.loss),
            ("draw", &self.draw),
        ]
    }
}

impl Moods {
    pub fn all(&self) -> Vec<(&'static str, &str)> {
        let optional = [("compliment", &self.compliment), ("trash_talk", &self.trash_talk)];
        let set = optional.into_iter().filter_map(|(k, v)| Some((k, v.as_deref()?)));
        [
            ("user_capture", &self.user_capture),
            ("agent_capture", &self.agent_capture),
            ("user_check", &self.user_check),
            ("agent_check", &self.agent_check),
            ("idle", &self.idle),
            ("win", &self.win),
            ("loss", &self.loss),
            ("draw", &self.draw),
        ]
        .map(|(k, v)| (k, v.as_str()))
        .into_iter()
        .chain(set)
        .collect()
    }
}

impl Persona {
    pub fn default_emotion(&self) -> &str {
        &self.emotions[0]
    }

    /// Its lines of `event` for a player at `stage`: the stage's own, else
    /// the nearest stage below that words them (none for a stranger unless
    /// its file words the stranger).
    pub fn stage_lines(&self, stage: Stage, event: StageEvent) -> &[Line] {
        Stage::ALL[..=stage as usize]
            .iter()
            .rev()
            .filter_map(|s| self.stages.get(s))
            .map(|lines| lines.for_event(event))
            .find(|lines| !lines.is_empty())
            .unwrap_or(&[])
    }
}
