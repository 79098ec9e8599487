//! The scripted brain: deterministic, persona-specific lines per event,
//! filled with true facts from the game context. It is the default brain and
//! the safety net behind every LLM brain.

use async_trait::async_trait;

use super::{Brain, BrainError, BrainInput};
use crate::actions::{Action, Decision};
use crate::memory::{MemoryType, Recalled};
use crate::personas::LineEvent;
use crate::triggers::{GameContext, TriggerKind, UserInput};
use speaker::{Fill, Speaker, quoted, speaker};

/// Says persona lines filled with true facts; needs no model.
#[derive(Default)]
pub struct ScriptedBrain;

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
            TriggerKind::OnUserInput => return Ok(on_user_input(&input)),
            TriggerKind::AfterMatch => after_match(&input),
        };
        let standing = match input.trigger.kind {
            TriggerKind::BeforeMatch => standing::at_greeting(input.ctx, speaker(&input).seed),
            TriggerKind::AfterMatch => standing::after_game(input.ctx),
            _ => None,
        };
        let said = standing.map(|text| Action::say(text, &input.persona.tones[0]));
        // One of the player's old mistakes, offered at the greeting.
        let offer = matches!(input.trigger.input, Some(UserInput::PuzzleOffer { .. }))
            .then(|| Action::say(puzzle::words(&input), &input.persona.tones[0]));
        for extra in [board_reminder(&input), familiar::callback(&input), said, offer]
            .into_iter()
            .flatten()
        {
            let at = decision.actions.iter().position(|a| *a == Action::Stop);
            decision.actions.insert(at.unwrap_or(decision.actions.len()), extra);
        }
        Ok(decision)
    }
}

/// The board itself reminded the persona of something: say so (but not
/// what the greeting already told, nor bad news the player told: that
/// waits until they speak of it).
fn board_reminder(input: &BrainInput<'_>) -> Option<Action> {
    let greeted = (input.trigger.kind == TriggerKind::BeforeMatch)
        .then(|| greeting_memory(input))
        .flatten()
        .map(|r| r.memory.id);
    let r = input
        .memories
        .iter()
        .filter(|r| r.memory.memory_type != MemoryType::SharedMoment)
        .filter(|r| !quoted_this_match(input, r) && !bad_news(r))
        .find(|r| !r.why.is_empty() && Some(r.memory.id) != greeted)?;
    Some(Action::say(reminder(r), &input.persona.tones[0]))
}

/// Whether the persona already quoted this memory in this match: a club
/// friend says "you hate being short of time" once a game, not at every
/// pause, chat line and the handshake.
fn quoted_this_match(input: &BrainInput<'_>, r: &Recalled) -> bool {
    let quote = quoted(&r.memory.content);
    input.ctx.said.iter().any(|line| line.contains(&quote))
}

/// "That reminds me, <why>: “<memory>”".
fn reminder(r: &Recalled) -> String {
    // The persona's own lore is no reminder of the player.
    if r.memory.created_by == crate::memory::CreatedBy::PersonaLore {
        return format!("Speaking of which: {}", quoted(&r.memory.content));
    }
    match r.why.as_str() {
        "" => format!("That reminds me: {}", quoted(&r.memory.content)),
        why => format!("That reminds me, {why}: {}", quoted(&r.memory.content)),
    }
}

fn player_memories(memories: &[Recalled]) -> impl Iterator<Item = &Recalled> {
    memories.iter().filter(|r| r.memory.player_id.is_some())
}

/// What a returning player is greeted with: what they told of themselves
/// ("Noor teaches piano") before any record of a game, else a memory of
/// them recalled for no reason in particular, else the first one recalled.
fn greeting_memory<'a>(input: &'a BrainInput<'_>) -> Option<&'a Recalled> {
    let told = |r: &&Recalled| {
        matches!(
            r.memory.memory_type,
            MemoryType::PlayerObservation | MemoryType::PersonalNote
        )
    };
    // A fact in the persona's words before a line kept as the player said
    // it ("Ann said: \"...\""): a greeting recites what it knows of them.
    let quoted = |r: &&Recalled| crate::listen::kept_as_said(&r.memory.content, &input.ctx.player_name);
    // Bad news they told (a job lost, an illness) is not recited as a
    // greeting (nor as a reminder at the board: `board_reminder`).
    let mine = || player_memories(input.memories).filter(|r| !bad_news(r));
    // And one that opens on them ("Rosa works as a nurse") before a
    // fragment about their day ("The worst shift Rosa has had all year").
    let name = &input.ctx.player_name;
    let of_them = |r: &&Recalled| {
        let c = &r.memory.content;
        c.starts_with(&format!("{name} ")) || c.starts_with(&format!("{name}'s "))
    };
    let personal = mine()
        .find(|r| told(r) && !quoted(r) && of_them(r))
        .or_else(|| mine().find(|r| told(r) && !quoted(r)))
        .or_else(|| mine().find(told));
    let plain = mine().find(|r| r.why.is_empty());
    personal.or(plain).or_else(|| mine().next())
}

/// The metadata of a fact kept from a line the listener heard as bad news.
fn bad_news_mark() -> serde_json::Value {
    serde_json::json!({ "news": "bad" })
}

/// A memory kept from a line the listener heard as bad news.
fn bad_news(r: &Recalled) -> bool {
    r.memory.metadata.get("news") == bad_news_mark().get("news")
}

fn greet(input: &BrainInput<'_>) -> Decision {
    let s = speaker(input);
    let memory = greeting_memory(input);
    if let Some(line) = familiar::greeting(input, &s, memory) {
        let recalled = memory.map_or(String::new(), |r| format!(" I remember: {}", r.memory.content));
        return Decision {
            thinking: Some(format!("{}{recalled}", familiar::thought(input))),
            actions: vec![line],
        };
    }
    match memory {
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
        None if input.ctx.history.played > 0 => Decision {
            thinking: Some(format!(
                "{} is back; I remember nothing in particular.",
                input.ctx.player_name
            )),
            actions: vec![Action::say(
                format!(
                    "Welcome back, {}! That makes game {} between us.",
                    input.ctx.player_name,
                    input.ctx.history.played + 1
                ),
                &input.persona.tones[0],
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
    let actions = if let Some(tease) = familiar::tease(input, &s, m) {
        vec![tease]
    } else if m.captured.is_some() {
        vec![s.line(LineEvent::UserCapture, &fill), Action::feel(&moods.user_capture)]
    } else if m.check {
        vec![s.line(LineEvent::UserCheck, &fill), Action::feel(&moods.user_check)]
    } else if (m.ply / 2) % input.ctx.talk.chattiness(input.persona.chattiness) as usize == 0 {
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

fn on_user_input(input: &BrainInput<'_>) -> Decision {
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
        Some(UserInput::Hint { .. }) | Some(UserInput::Explain) => board::control(input),
        Some(UserInput::Takeback { granted, moves, .. }) => takeback::words(input, &s, *granted, moves),
        Some(UserInput::PuzzleAnswer { .. }) => decision(
            "An answer to one of their old mistakes.",
            vec![Action::say(puzzle::words(input), &input.persona.tones[0])],
        ),
        Some(UserInput::PuzzleOffer { .. }) => Decision::default(),
        Some(UserInput::Chat { text }) => match &input.trigger.heard {
            Some(heard) => chat::reply(input, &s, text, heard),
            // Not heard by the pipeline (a brain driven directly): by rules.
            None => {
                let heard = crate::listen::Listener::default().hear(text, None, &input.ctx.player_name);
                chat::reply(input, &s, text, &heard)
            }
        },
        None => Decision::default(),
    }
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
    let mut actions = vec![s.line(event, &fill)];
    actions.extend(familiar::closing(input, &s));
    actions.push(Action::feel(mood));
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
    // The second game of a day would read as the first one told twice.
    let which = match ctx.history.played_today {
        0 | 1 => String::new(),
        n @ 2..=10 => format!(", in our {} game that day", ordinal(n)),
        n => format!(", in game {n} of that day"),
    };
    let mut out = vec![(
        MemoryType::GameContext,
        format!("On {date}{which}, {player} played {colour} and {outcome} by {how} {moves}."),
    )];
    // A game set up from a position had no opening of the player's choosing.
    if ctx.move_count >= 2 && ctx.standard_start {
        out.push((MemoryType::PlayerBehavior, repertoire(player, ctx)));
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

/// "second" ... "tenth", for 2 to 10.
fn ordinal(n: u32) -> &'static str {
    const WORDS: [&str; 9] = [
        "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth",
    ];
    WORDS[(n.clamp(2, 10) - 2) as usize]
}

/// What the player chose in the opening, credited to them alone: as Black
/// the first move was the persona's, so the line is told as their answer
/// ("As Black, Ria answered 1. d3 with 1... e5; the game went on 2. Nf3
/// Nc6"). The numbered moves stay in the text: the opening book follows
/// them back to the position. No opening is named: a name would read as the
/// player's repertoire to the write policy and retire what they said they
/// prefer ("my favourite is the London") after one game of something else.
fn repertoire(player: &str, ctx: &GameContext) -> String {
    if ctx.user_color == "white" {
        return format!("As White, {player} opened with {}.", ctx.opening);
    }
    let mut tokens = ctx.opening.split_whitespace();
    let (Some(_), Some(mine), Some(theirs)) = (tokens.next(), tokens.next(), tokens.next()) else {
        return format!("As Black, {player} played {}.", ctx.opening);
    };
    let rest: Vec<&str> = tokens.collect();
    let went_on = if rest.is_empty() {
        String::new()
    } else {
        format!("; the game went on {}", rest.join(" "))
    };
    format!("As Black, {player} answered 1. {mine} with 1... {theirs}{went_on}.")
}

fn decision(thinking: &str, actions: Vec<Action>) -> Decision {
    Decision {
        thinking: Some(thinking.to_string()),
        actions,
    }
}

mod answers;
mod board;
mod chat;
mod echo;
mod familiar;
mod puzzle;
mod speaker;
mod standing;
mod takeback;
pub(crate) use answers::answer as known_answer;
pub(crate) use board::control_answer;
pub(crate) use puzzle::words as puzzle_words;
pub(crate) use standing::adapted_notice;
#[cfg(test)]
mod chat_tests;
#[cfg(test)]
mod familiar_tests;
#[cfg(test)]
mod reminder_tests;
#[cfg(test)]
mod tests;
