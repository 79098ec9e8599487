//! How a scripted line is said: one of the persona's lines for the moment,
//! chosen by a seed of the match and the moment (deterministic but varied,
//! and not a line said lately), its placeholders filled with true facts.

use super::BrainInput;
use crate::actions::Action;
use crate::personas::{Line, LineEvent, Persona, said_from as says};
use crate::triggers::{GameContext, MoveFact};

/// Placeholder values for one line.
#[derive(Default)]
pub(super) struct Fill<'a> {
    pub(super) mv: &'a str,
    pub(super) piece: &'a str,
    pub(super) result: &'a str,
    pub(super) memory: &'a str,
}

impl<'a> Fill<'a> {
    pub(super) fn of_move(m: &'a MoveFact) -> Fill<'a> {
        Fill {
            mv: &m.san,
            piece: m.captured.as_deref().unwrap_or(""),
            ..Fill::default()
        }
    }
}

pub(super) struct Speaker<'a> {
    pub(super) persona: &'a Persona,
    pub(super) ctx: &'a GameContext,
    /// The persona's mood as the trigger found it.
    pub(super) emotion: &'a str,
    pub(super) seed: u64,
}

impl Speaker<'_> {
    pub(super) fn line(&self, event: LineEvent, fill: &Fill<'_>) -> Action {
        self.nth_line(event, self.seed as usize, fill)
    }

    pub(super) fn nth_line(&self, event: LineEvent, n: usize, fill: &Fill<'_>) -> Action {
        let lines: &[Line] = self.persona.lines.for_event(event);
        let pick = self.fresh(lines, n);
        let line = &lines[pick];
        Action::say(self.render(&line.text, fill, &[]), &line.tone)
    }

    /// One of `lines` with these placeholders filled besides the usual ones.
    pub(super) fn pick_from(&self, lines: &[Line], extra: &[(&str, &str)]) -> Action {
        let line = &lines[self.fresh(lines, self.seed as usize)];
        Action::say(self.render(&line.text, &Fill::default(), extra), &line.tone)
    }

    /// One of `lines` with these move, result and memory placeholders.
    pub(super) fn pick_filled(&self, lines: &[Line], fill: &Fill<'_>) -> Action {
        let line = &lines[self.fresh(lines, self.seed as usize)];
        Action::say(self.render(&line.text, fill, &[]), &line.tone)
    }

    pub(super) fn render(&self, text: &str, fill: &Fill<'_>, extra: &[(&str, &str)]) -> String {
        let known = &self.ctx.history.familiarity;
        let mut text = in_sentence(text, "{absence}", &known.absence_words())
            .replace("{games}", &known.games.to_string())
            .replace("{player}", &self.ctx.player_name)
            .replace("{persona}", &self.persona.name)
            .replace("{move}", fill.mv)
            .replace("{piece}", fill.piece)
            .replace("{result}", fill.result)
            .replace("{memory}", &quoted(fill.memory));
        for (key, value) in extra {
            // "{echo}. Noted!" opens with what the player said: capitalised.
            let value = match text.starts_with(key) {
                true => capitalised(value),
                false => value.to_string(),
            };
            text = text.replace(key, &value);
        }
        text
    }

    /// From the `n`th on, the first line not said in this match yet (a
    /// line is its template: "Ha! {answer}" was said whatever it answered);
    /// when every one was, the one said longest ago, never the last one.
    /// Lines for the persona's present mood come first, then lines for any
    /// mood; lines for other moods only when the card has nothing else.
    pub(super) fn fresh(&self, lines: &[Line], n: usize) -> usize {
        let said = &self.ctx.said;
        let last_said = |i: &usize| said.iter().rposition(|s| says(&lines[*i].text, s));
        let order = (0..lines.len()).map(|i| (n + i) % lines.len());
        let of_mood = |mood: Option<&str>| {
            order
                .clone()
                .filter(|i| lines[*i].mood.as_deref() == mood)
                .collect::<Vec<_>>()
        };
        let mut fitting = of_mood(Some(self.emotion));
        fitting.extend(of_mood(None));
        if fitting.is_empty() {
            fitting = order.collect();
        }
        let unsaid = fitting.iter().copied().find(|i| last_said(i).is_none());
        unsaid
            .or_else(|| fitting.iter().copied().min_by_key(last_said))
            .unwrap_or(0)
    }
}

/// `key` replaced by `value`, capitalised where it opens a sentence
/// ("{player}! {absence}!" -> "Ann! Three weeks!").
pub(super) fn in_sentence(text: &str, key: &str, value: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(key) {
        out.push_str(&rest[..at]);
        let opens = out.trim_end().is_empty() || out.trim_end().ends_with(['.', '!', '?']);
        out.push_str(&if opens { capitalised(value) } else { value.to_string() });
        rest = &rest[at + key.len()..];
    }
    out.push_str(rest);
    out
}

pub(super) fn capitalised(text: &str) -> String {
    let mut chars = text.chars();
    chars
        .next()
        .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
}

pub(super) fn speaker<'a>(input: &'a BrainInput<'_>) -> Speaker<'a> {
    // Same match, same moment, same words: deterministic but varied.
    let mut seed: u64 = 0xcbf2_9ce4_8422_2325;
    let salt = [
        input.ctx.move_count as u64,
        input.trigger.kind as u64,
        u64::from(input.trigger.nudge),
    ];
    for byte in input
        .ctx
        .match_id
        .0
        .as_bytes()
        .iter()
        .copied()
        .chain(salt.iter().flat_map(|s| s.to_le_bytes()))
    {
        seed = (seed ^ u64::from(byte)).wrapping_mul(0x100_0000_01b3);
    }
    Speaker {
        persona: input.persona,
        ctx: input.ctx,
        emotion: input.emotion,
        seed,
    }
}

/// A memory in quotes: it tells of another time, and the claim checker must
/// not read it as words about this board ("lost to me by checkmate").
pub(super) fn quoted(memory: &str) -> String {
    format!("“{}”", memory.trim())
}
