//! The words that change with how well the persona knows the player
//! (`familiarity::Stage`): the greeting (or, after a long absence, the
//! remark on it), the last words of a game (consoling a loser, a farewell
//! otherwise), the teasing a friend may afford over a blunder. From the
//! persona's `[stages.*]` lines; a stage it does not word speaks as the
//! stage before it, a stranger its plain lines.

use super::{Fill, Speaker};
use crate::actions::Action;
use crate::agent::BrainInput;
use crate::chess::odds::MoveClass;
use crate::familiarity::{Familiarity, Stage};
use crate::memory::{MemoryType, Recalled};
use crate::personas::{Line, StageEvent};
use crate::triggers::{MoveFact, TriggerKind};

fn known<'a>(input: &'a BrainInput<'_>) -> &'a Familiarity {
    &input.ctx.history.familiarity
}

/// The greeting for this stage, with the memory if one came up (lines with
/// {memory} then, lines without it else); None when the persona words no
/// line for it. After a long absence, its remark on that first.
pub(super) fn greeting(input: &BrainInput<'_>, s: &Speaker<'_>, memory: Option<&Recalled>) -> Option<Action> {
    let f = known(input);
    let lines = |event| input.persona.stage_lines(f.stage, event);
    let absent = f.long_absence && f.games > 0;
    // The absence comes first: with the memory if a line says one, else
    // without it.
    let absence = absent.then(|| {
        let with = fitting(lines(StageEvent::Absence), memory.is_some());
        if with.is_empty() {
            fitting(lines(StageEvent::Absence), false)
        } else {
            with
        }
    });
    let chosen = absence
        .filter(|l| !l.is_empty())
        .unwrap_or_else(|| fitting(lines(StageEvent::Greeting), memory.is_some()));
    let fill = Fill {
        memory: memory.map_or("", |r| r.memory.content.as_str()),
        ..Fill::default()
    };
    (!chosen.is_empty()).then(|| s.pick_filled(&chosen, &fill))
}

/// Lines that use {memory} when there is one to say, those that do not else.
fn fitting(lines: &[Line], with_memory: bool) -> Vec<Line> {
    lines
        .iter()
        .filter(|l| l.text.contains("{memory}") == with_memory)
        .cloned()
        .collect()
}

/// After the result line: consolation for a player who lost, a farewell
/// otherwise, as this stage words them.
pub(super) fn closing(input: &BrainInput<'_>, s: &Speaker<'_>) -> Option<Action> {
    let lost = input.ctx.end.as_ref().is_some_and(|e| e.user_won == Some(false));
    let event = if lost {
        StageEvent::Console
    } else {
        StageEvent::Farewell
    };
    let lines = input.persona.stage_lines(known(input).stage, event);
    (!lines.is_empty()).then(|| s.pick_filled(lines, &Fill::default()))
}

/// A goodbye in chat, as this stage words it.
pub(super) fn farewell_lines<'a>(input: &'a BrainInput<'_>) -> Option<&'a [Line]> {
    let lines = input.persona.stage_lines(known(input).stage, StageEvent::Farewell);
    (!lines.is_empty()).then_some(lines)
}

/// Teasing is for a regular or an old friend: over their blunder or
/// mistake, or back at their trash talk.
pub(super) fn tease_lines<'a>(input: &'a BrainInput<'_>) -> Option<&'a [Line]> {
    let stage = known(input).stage;
    let lines = input.persona.stage_lines(stage, StageEvent::Tease);
    (stage >= Stage::Regular && !lines.is_empty()).then_some(lines)
}

/// The tease for the player's move, if it was a blunder or a mistake.
pub(super) fn tease(input: &BrainInput<'_>, s: &Speaker<'_>, m: &MoveFact) -> Option<Action> {
    let bad = m
        .odds
        .is_some_and(|o| matches!(o.class, MoveClass::Mistake | MoveClass::Blunder));
    let lines = tease_lines(input).filter(|_| bad)?;
    Some(s.pick_filled(lines, &Fill::of_move(m)))
}

/// What the thinking says of the two of them.
pub(super) fn thought(input: &BrainInput<'_>) -> String {
    let f = known(input);
    let mut out = format!("{} is {} to me", input.ctx.player_name, f.stage.described());
    if f.games > 0 {
        out.push_str(&format!(" ({} games together)", f.games));
    }
    if f.long_absence && f.games > 0 {
        out.push_str(&format!(", back after {}", f.absence_words()));
    }
    out.push('.');
    out
}

/// At the greeting, a moment the two of them shared, called back (the
/// subconscious hands over at most one a match), unless the greeting
/// already said it.
pub(super) fn callback(input: &BrainInput<'_>) -> Option<Action> {
    if input.trigger.kind != TriggerKind::BeforeMatch {
        return None;
    }
    let greeted = super::greeting_memory(input).map(|r| r.memory.id);
    let moment = input
        .memories
        .iter()
        .find(|r| r.memory.memory_type == MemoryType::SharedMoment && Some(r.memory.id) != greeted)?;
    const CALLBACKS: [&str; 3] = [
        "Remember this one? {memory}",
        "I still think about it: {memory}",
        "Do you remember? {memory}",
    ];
    let line = CALLBACKS[super::speaker(input).seed as usize % CALLBACKS.len()];
    let text = line.replace("{memory}", &super::quoted(&moment.memory.content));
    Some(Action::say(text, &input.persona.tones[0]))
}
