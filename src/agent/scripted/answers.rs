//! The scripted brain's answers to questions, from what is known: about
//! the two of them from the match history and the recalled memories, about
//! the persona from its card and lore, about the board from the odds.

use super::{board, quoted};
use crate::agent::BrainInput;
use crate::chess::engine::Style;
use crate::listen::Intent;
use crate::memory::{CreatedBy, MemoryType, Recalled};

/// What a question is answered with, from what is known; empty when the
/// intent asks nothing. The LLM brain is told it too.
pub(crate) fn answer(input: &BrainInput<'_>, text: &str, intent: Intent) -> String {
    answered(input, text, intent).text
}

/// An answer, and whether it tells something or owns to not knowing: a
/// card's "Of course I do. {answer}" must not lead into "you haven't told
/// me that yet", so an answer that knows nothing is said alone.
pub(super) struct Answer {
    pub(super) text: String,
    pub(super) known: bool,
}

impl Answer {
    fn known(text: String) -> Answer {
        Answer { text, known: true }
    }
}

pub(super) fn answered(input: &BrainInput<'_>, text: &str, intent: Intent) -> Answer {
    let a_question = matches!(intent, Intent::AsksMemory | Intent::AsksPersona | Intent::AsksPosition);
    if a_question && super::standing::asks_own_rating(text) {
        return Answer::known(super::standing::told(input.ctx));
    }
    match intent {
        Intent::AsksMemory => about_us(input, text),
        Intent::AsksPersona => Answer::known(about_me(input, text)),
        Intent::AsksPosition => Answer::known(board::about_the_board(input, text)),
        Intent::DrawRequest => Answer::known(match board::user_win_pct(input) {
            Some(p) if p < 45.0 => "A draw? Not while I'm better. Play on.".into(),
            _ => "Offer it with the draw button and I'll think it over.".into(),
        }),
        _ => Answer::known(String::new()),
    }
}

fn player_memories<'a>(input: &'a BrainInput<'_>) -> impl Iterator<Item = &'a Recalled> {
    input.memories.iter().filter(|r| r.memory.player_id.is_some())
}

/// "Do you remember me?", "how many times have I beaten you?", "what did I
/// play last time?": the head-to-head, the openings, the memories.
fn about_us(input: &BrainInput<'_>, text: &str) -> Answer {
    let (ctx, h) = (input.ctx, &input.ctx.history);
    let t = text.to_lowercase();
    let asks_score = ["beat", "won", "win", "score", "record", "how many", "lost"]
        .iter()
        .any(|w| t.contains(w));
    if asks_score {
        let text = match h.played {
            0 => format!("We haven't finished a game yet, {}.", ctx.player_name),
            n => {
                let mut s = format!(
                    "We've played {}: you won {}, I won {}, {} drawn.",
                    games(n),
                    h.user_wins,
                    h.user_losses,
                    h.draws
                );
                if let Some((run, k)) = h.streak.as_ref().filter(|(_, k)| *k >= 2) {
                    s.push_str(&format!(" That's {k} {} in a row.", run.replace("user_", "you ")));
                }
                s
            }
        };
        return Answer {
            text,
            known: h.played > 0,
        };
    }
    let asks_openings = ["play", "opening", "opened"].iter().any(|w| t.contains(w));
    if asks_openings {
        if let Some(last) = h.last_game.as_ref().filter(|g| g.opening.is_some()) {
            return Answer::known(last_game(last));
        }
        let opening = player_memories(input).find(|r| r.memory.tags.iter().any(|t| t.starts_with("opening:")));
        if let Some(r) = opening {
            return Answer::known(format!("I remember: {}", quoted(&r.memory.content)));
        }
        if let Some(u) = h.usual_openings.first() {
            let colour = if ctx.user_color == "white" { "White" } else { "Black" };
            return Answer::known(format!(
                "As {colour} you chose the {} ({} of your last {} games).",
                u.family, u.games, u.of
            ));
        }
    }
    // "Who taught me chess?": a question about them, answered by what they
    // told (the memory most like the question), or honestly not.
    let whether_known = [
        "remember me",
        "know me",
        "who am i",
        "met",
        "recognise",
        "recognize",
        "forgot",
    ];
    let about_them = t
        .split(|c: char| !c.is_alphanumeric())
        .any(|w| ["me", "my", "i"].contains(&w));
    if about_them && !whether_known.iter().any(|w| t.contains(w)) {
        // The first in recall's order, which weighed what the question is
        // about, not the nearest in raw meaning: "what I do for work?" is
        // nearer 'Lena said: "first time here."' (0.12) than "Lena is a
        // nurse in Hamburg." (0.10), seen in play.
        let told = player_memories(input).find(|r| r.memory.memory_type != MemoryType::GameContext);
        return match told {
            Some(r) => Answer::known(format!("You told me yourself: {}", quoted(&r.memory.content))),
            None => Answer {
                text: format!("You haven't told me that yet, {}.", ctx.player_name),
                known: false,
            },
        };
    }
    // What they told of themselves says "I know you" better than a result.
    let personal = |r: &&Recalled| r.memory.tags.iter().any(|t| t == "personal");
    let best = player_memories(input)
        .find(personal)
        .or_else(|| player_memories(input).max_by(|a, b| a.similarity.total_cmp(&b.similarity)));
    let text = match (best, h.played) {
        (None, 0) => {
            return Answer {
                text: format!("I don't think we've met before, {}.", ctx.player_name),
                known: false,
            };
        }
        (None, n) => format!("Of course, {}: we've played {}.", ctx.player_name, games(n)),
        (Some(r), 0) => format!("I remember you, {}: {}", ctx.player_name, quoted(&r.memory.content)),
        (Some(r), n) => format!(
            "Of course, {}: {} so far, and I remember {}",
            ctx.player_name,
            games(n),
            quoted(&r.memory.content)
        ),
    };
    Answer::known(text)
}

/// "Last time you had White: the Italian Game, and you resigned after 23 moves."
fn last_game(g: &crate::triggers::LastGame) -> String {
    let colour = if g.user_color == "white" { "White" } else { "Black" };
    let how = match g.user_won {
        Some(true) => format!("you won by {}", g.termination),
        Some(false) if g.termination == "resignation" => "you resigned".to_string(),
        Some(false) => format!("I won by {}", g.termination),
        None => format!("we drew by {}", g.termination),
    };
    let opening = g.opening.as_deref().unwrap_or("a game of our own");
    format!(
        "Last time you had {colour}: the {opening}, and {how} after {}.",
        moves(g.moves)
    )
}

fn moves(n: usize) -> String {
    match n {
        1 => "one move".into(),
        n => format!("{n} moves"),
    }
}

fn games(n: u32) -> String {
    match n {
        1 => "one game".into(),
        n => format!("{n} games"),
    }
}

/// About the persona: its strength or style when asked, else its lore,
/// else who it is.
fn about_me(input: &BrainInput<'_>, text: &str) -> String {
    let (p, t) = (input.persona, text.to_lowercase());
    let asks = |words: &[&str]| words.iter().any(|w| t.contains(w));
    if asks(&["rating", "elo", "how strong", "how good are you"]) {
        return format!("I play at about {} here at the club.", p.elo);
    }
    let style_words = [
        "style",
        "kind of player",
        "how do you play",
        "sort of player",
        "aggressive",
        "attacking",
    ];
    if asks(&style_words) || asks(&["defensive", "solid", "positional", "tricky", "careful"]) {
        let style = match p.style {
            Style::Aggressive => "aggressive: I go for the king and take my chances",
            Style::Positional => "positional: good squares, sound pawns, no hurry",
            Style::Defensive => "defensive: I keep things solid and wait for your mistake",
            Style::Tricky => "tricky: I set traps and see if you step in them",
        };
        return format!("My style is {style}.");
    }
    // What it told already in this match is not told again ("who is your
    // favourite player?" after "do you like the Queen's Gambit?" got the
    // same line of its biography twice): the nearest lore, who it is, then
    // lore the question did not bring, each once.
    let unsaid = |words: &str| !input.ctx.said.iter().any(|line| line.contains(words));
    let club = |lore: &str| format!("Ask anyone at the club: {}", quoted(lore));
    let lore = input
        .memories
        .iter()
        .filter(|r| r.memory.created_by == CreatedBy::PersonaLore && unsaid(&r.memory.content))
        .max_by(|a, b| a.similarity.total_cmp(&b.similarity));
    let bio = &p.biography;
    let who = bio.split_inclusive(". ").next().unwrap_or(bio).trim();
    match lore {
        Some(r) => club(&r.memory.content),
        None if unsaid(who) => who.to_string(),
        None => match p.lore.iter().find(|l| unsaid(&l.text)) {
            Some(l) => club(&l.text),
            None => "You know my story already.".to_string(),
        },
    }
}
