//! The scripted brain: deterministic, persona-specific lines per event,
//! filled with true facts from the game context. It is the default brain and
//! the safety net behind every LLM brain.

use async_trait::async_trait;

use super::{Brain, BrainError, BrainInput};
use crate::actions::{Action, Decision};
use crate::memory::{MemoryType, Recalled};
use crate::personas::{Line, LineEvent, Persona};
use crate::triggers::{GameContext, MoveFact, TriggerKind, UserInput};

/// A chat message this long (in words) is worth remembering.
const MEMORABLE_CHAT_WORDS: usize = 3;
const CHAT_EXCERPT_CHARS: usize = 160;
/// A recalled memory this similar to what the user said gets mentioned.
const MENTION_SCORE: f32 = 0.5;

pub struct ScriptedBrain {
    /// One remark noted per match at most this often (`memory.remark_gap_secs`).
    /// With no model to judge what matters, noting every line would bury the
    /// few that do among pleasantries (in the review page and in recall), and
    /// each costs a model run: a chatty player's every ten seconds was most
    /// of the model's time.
    remark_gap: chrono::TimeDelta,
}

impl Default for ScriptedBrain {
    fn default() -> Self {
        ScriptedBrain::with_remark_gap(crate::config::MemoryConfig::default().remark_gap_secs)
    }
}

impl ScriptedBrain {
    pub fn with_remark_gap(secs: u64) -> ScriptedBrain {
        let secs = i64::try_from(secs).unwrap_or(i64::MAX);
        ScriptedBrain {
            remark_gap: chrono::TimeDelta::try_seconds(secs).unwrap_or(chrono::TimeDelta::MAX),
        }
    }
}

#[async_trait]
impl Brain for ScriptedBrain {
    fn name(&self) -> &'static str {
        "scripted"
    }

    async fn decide(&self, input: BrainInput<'_>) -> Result<Decision, BrainError> {
        let mut decision = match input.trigger.kind {
            TriggerKind::BeforeMatch => greet(&input),
            TriggerKind::OnUserMove => on_user_move(&input),
            TriggerKind::BeforeAgentMove => before_agent_move(&input),
            TriggerKind::IdleWait => idle(&input),
            // A chat reply brings up related memories itself.
            TriggerKind::OnUserInput => return Ok(on_user_input(&input, self.remark_gap)),
            TriggerKind::AfterMatch => after_match(&input),
        };
        if let Some(reminder) = board_reminder(&input) {
            let at = decision.actions.iter().position(|a| *a == Action::Stop);
            decision.actions.insert(at.unwrap_or(decision.actions.len()), reminder);
        }
        Ok(decision)
    }
}

/// The board itself reminded the persona of something: say so.
fn board_reminder(input: &BrainInput<'_>) -> Option<Action> {
    let r = input.memories.iter().find(|r| !r.why.is_empty())?;
    Some(Action::say(reminder(r), &input.persona.tones[0]))
}

/// "That reminds me, <why>: “<memory>”".
fn reminder(r: &Recalled) -> String {
    match r.why.as_str() {
        "" => format!("That reminds me: {}", quoted(&r.memory.content)),
        why => format!("That reminds me, {why}: {}", quoted(&r.memory.content)),
    }
}

/// A memory in quotes: it tells of another time, and the claim checker must
/// not read it as words about this board ("lost to me by checkmate").
fn quoted(memory: &str) -> String {
    format!("“{}”", memory.trim())
}

/// Placeholder values for one line.
#[derive(Default)]
struct Fill<'a> {
    mv: &'a str,
    piece: &'a str,
    result: &'a str,
    memory: &'a str,
}

impl<'a> Fill<'a> {
    fn of_move(m: &'a MoveFact) -> Fill<'a> {
        Fill {
            mv: &m.san,
            piece: m.captured.as_deref().unwrap_or(""),
            ..Fill::default()
        }
    }
}

struct Speaker<'a> {
    persona: &'a Persona,
    ctx: &'a GameContext,
    seed: u64,
}

impl Speaker<'_> {
    fn line(&self, event: LineEvent, fill: &Fill<'_>) -> Action {
        self.nth_line(event, self.seed as usize, fill)
    }

    fn nth_line(&self, event: LineEvent, n: usize, fill: &Fill<'_>) -> Action {
        let lines: &[Line] = self.persona.lines.for_event(event);
        let line = &lines[n % lines.len()];
        let text = line
            .text
            .replace("{player}", &self.ctx.player_name)
            .replace("{persona}", &self.persona.name)
            .replace("{move}", fill.mv)
            .replace("{piece}", fill.piece)
            .replace("{result}", fill.result)
            .replace("{memory}", &quoted(fill.memory));
        Action::say(text, &line.tone)
    }
}

fn speaker<'a>(input: &'a BrainInput<'_>) -> Speaker<'a> {
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
        seed,
    }
}

fn player_memories(memories: &[Recalled]) -> impl Iterator<Item = &Recalled> {
    memories.iter().filter(|r| r.memory.player_id.is_some())
}

fn greet(input: &BrainInput<'_>) -> Decision {
    let s = speaker(input);
    // Memories the board brought back are told separately (board_reminder).
    match player_memories(input.memories).find(|r| r.why.is_empty()) {
        Some(best) => Decision {
            thinking: Some(format!("I know {}: {}", input.ctx.player_name, best.memory.content)),
            actions: vec![s.line(
                LineEvent::GreetingReturning,
                &Fill {
                    memory: &best.memory.content,
                    ..Fill::default()
                },
            )],
        },
        None => Decision {
            thinking: Some(format!(
                "{} is new to me, or I remember nothing useful.",
                input.ctx.player_name
            )),
            actions: vec![s.line(LineEvent::Greeting, &Fill::default())],
        },
    }
}

fn on_user_move(input: &BrainInput<'_>) -> Decision {
    let (s, moods) = (speaker(input), &input.persona.moods);
    let Some(m) = input.ctx.last_move().filter(|m| m.by_user) else {
        return Decision::default();
    };
    let fill = Fill::of_move(m);
    let actions = if m.captured.is_some() {
        vec![s.line(LineEvent::UserCapture, &fill), Action::feel(&moods.user_capture)]
    } else if m.check {
        vec![s.line(LineEvent::UserCheck, &fill), Action::feel(&moods.user_check)]
    } else if (m.ply / 2) % input.persona.chattiness as usize == 0 {
        vec![s.line(LineEvent::UserMove, &fill)]
    } else {
        vec![]
    };
    Decision {
        thinking: Some(format!("{} played {}.", input.ctx.player_name, m.san)),
        actions,
    }
}

fn before_agent_move(input: &BrainInput<'_>) -> Decision {
    let (s, moods) = (speaker(input), &input.persona.moods);
    let Some(m) = &input.ctx.planned_move else {
        return Decision::default();
    };
    let fill = Fill::of_move(m);
    let actions = if m.captured.is_some() {
        vec![
            s.line(LineEvent::AgentCapture, &fill),
            Action::feel(&moods.agent_capture),
        ]
    } else if m.check {
        vec![s.line(LineEvent::AgentCheck, &fill), Action::feel(&moods.agent_check)]
    } else {
        vec![]
    };
    Decision {
        thinking: Some(format!("I will play {}.", m.san)),
        actions,
    }
}

fn idle(input: &BrainInput<'_>) -> Decision {
    let s = speaker(input);
    let nudge = input.trigger.nudge as usize;
    let mut actions = vec![s.nth_line(LineEvent::Idle, nudge, &Fill::default())];
    if nudge == 0 {
        actions.push(Action::feel(&input.persona.moods.idle));
    }
    Decision {
        thinking: Some(format!("Nudge {} while {} thinks.", nudge + 1, input.ctx.player_name)),
        actions,
    }
}

fn on_user_input(input: &BrainInput<'_>, remark_gap: chrono::TimeDelta) -> Decision {
    let s = speaker(input);
    match &input.trigger.input {
        Some(UserInput::DrawOffer { accepted: true }) => decision(
            "The draw is fair.",
            vec![s.line(LineEvent::DrawAccepted, &Fill::default())],
        ),
        Some(UserInput::DrawOffer { accepted: false }) => decision(
            "Not a draw yet.",
            vec![s.line(LineEvent::DrawDeclined, &Fill::default())],
        ),
        Some(UserInput::Chat { text }) => chat_reply(input, &s, text, remark_gap),
        None => Decision::default(),
    }
}

fn chat_reply(input: &BrainInput<'_>, s: &Speaker<'_>, text: &str, remark_gap: chrono::TimeDelta) -> Decision {
    let mut actions = vec![s.line(LineEvent::ChatReply, &Fill::default())];
    let worth_mentioning = |r: &&Recalled| r.similarity >= MENTION_SCORE || !r.why.is_empty();
    if let Some(related) = input.memories.iter().find(worth_mentioning) {
        actions.push(Action::say(reminder(related), &input.persona.tones[0]));
    }
    let noted_lately = input
        .ctx
        .remark_noted_at
        .is_some_and(|at| input.ctx.now - at < remark_gap);
    if text.split_whitespace().count() >= MEMORABLE_CHAT_WORDS && !noted_lately {
        let excerpt: String = text.chars().take(CHAT_EXCERPT_CHARS).collect();
        let note = format!("{} told me: \"{}\"", input.ctx.player_name, excerpt.trim());
        actions.push(Action::remember(MemoryType::PlayerObservation, note));
    }
    decision("Answer, then back to the board.", actions)
}

fn after_match(input: &BrainInput<'_>) -> Decision {
    let (s, ctx, moods) = (speaker(input), input.ctx, &input.persona.moods);
    let Some(end) = &ctx.end else {
        return Decision::default();
    };
    let result = format!("{} by {}", end.result, end.termination.replace('_', " "));
    let fill = Fill {
        result: &result,
        ..Fill::default()
    };
    let (event, mood) = match end.user_won {
        Some(true) => (LineEvent::Loss, &moods.loss),
        Some(false) => (LineEvent::Win, &moods.win),
        None => (LineEvent::Draw, &moods.draw),
    };
    let mut actions = vec![s.line(event, &fill), Action::feel(mood)];
    actions.extend(
        match_memories(ctx)
            .into_iter()
            .map(|(kind, text)| Action::remember(kind, text)),
    );
    actions.push(Action::Stop);
    decision("The match is over; note what is worth keeping.", actions)
}

/// True, useful facts about the player from this match.
fn match_memories(ctx: &GameContext) -> Vec<(MemoryType, String)> {
    let Some(end) = &ctx.end else { return vec![] };
    let (player, colour) = (
        &ctx.player_name,
        if ctx.user_color == "white" { "White" } else { "Black" },
    );
    let date = ctx.now.format("%-d %B %Y");
    let outcome = match end.user_won {
        Some(true) => "beat me",
        Some(false) => "lost to me",
        None => "drew with me",
    };
    let moves = match ctx.move_count.div_ceil(2) {
        0 => "before a move was played".to_string(),
        1 => "after 1 move".to_string(),
        n => format!("after {n} moves"),
    };
    let how = end.termination.replace('_', " ");
    let mut out = vec![(
        MemoryType::GameContext,
        format!("On {date}, {player} played {colour} and {outcome} by {how} {moves}."),
    )];
    // A game set up from a position had no opening of the player's choosing.
    if ctx.move_count >= 2 && ctx.standard_start {
        out.push((
            MemoryType::PlayerBehavior,
            format!("As {colour}, {player} opened with {}.", ctx.opening),
        ));
    }
    if let Some((kind, n)) = ctx.history.streak.as_ref().filter(|(_, n)| *n >= 2) {
        let run = match kind.as_str() {
            "user_won" => "won",
            "user_lost" => "lost",
            _ => "drawn",
        };
        out.push((
            MemoryType::Streak,
            format!("{player} has {run} {n} matches in a row against me."),
        ));
    }
    out
}

fn decision(thinking: &str, actions: Vec<Action>) -> Decision {
    Decision {
        thinking: Some(thinking.to_string()),
        actions,
    }
}

#[cfg(test)]
mod tests;
