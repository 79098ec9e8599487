//! The moments of a game worth sharing later, from its record: a swindle
//! (the side that came back to win or draw had been at 15% or less), an
//! escape by stalemate a piece or more down, a blunder the player laughed
//! off, a line of theirs that made the persona laugh. Each is told with
//! what made it memorable, in the persona's words, to be kept as a
//! `shared_moment` memory and called back in a later game.

use shakmaty::fen::Fen;
use shakmaty::{Chess, Position};

use super::MatchFacts;
use crate::chess::GameEnd;
use crate::chess::odds::MoveClass;

/// A moment, its kind (swindle, stalemate, laughed_blunder, joke) and its words.
#[derive(Debug, Clone, PartialEq)]
pub struct Moment {
    pub kind: &'static str,
    pub content: String,
    pub importance: f32,
}

/// Where one side's chances must have been for a comeback to be a swindle.
const SWINDLE_PCT: f64 = 15.0;
/// At most this many moments from one game, the most memorable first.
const MOST: usize = 2;
const LAUGHS: &[&str] = &[
    "haha", "hahaha", "hahah", "ahaha", "hehe", "lol", "lmao", "rofl", "xd", "😂", "🤣", "😆", "😅",
];
const QUOTED_CHARS: usize = 120;

/// The player's lines with the number of moves played when each was said.
pub type Lines<'a> = &'a [(usize, String)];

pub fn shared(f: &MatchFacts<'_>, lines: Lines<'_>, date: &str) -> Vec<Moment> {
    let mut out: Vec<Moment> = Vec::new();
    out.extend(stalemate_escape(f, date).or_else(|| swindle(f, date)));
    let laughed = laughed_blunder(f, lines, date);
    let used = laughed.as_ref().map(|(ply, _)| *ply);
    out.extend(laughed.map(|(_, m)| m));
    out.extend(joke(f, lines, used, date));
    out.truncate(MOST);
    out
}

/// Whether a line laughs ("haha", "lol", "😂").
pub fn laughs(line: &str) -> bool {
    line.to_lowercase()
        .split(|c: char| !c.is_alphanumeric() && !is_emoji(c))
        .any(|w| LAUGHS.contains(&w) || w.starts_with("haha") || LAUGHS.iter().any(|l| !l.is_ascii() && w.contains(l)))
}

fn is_emoji(c: char) -> bool {
    c as u32 >= 0x1F300
}

/// The player's words in single quotes: a callback puts the whole moment
/// in double ones.
fn quoted(line: &str) -> String {
    let text: String = line.trim().chars().take(QUOTED_CHARS).collect();
    format!("‘{}’", text.replace(['‘', '’'], "'"))
}

/// The player's chances after each move, where the engine scored it.
fn player_pcts(f: &MatchFacts<'_>) -> Vec<(usize, f64)> {
    f.odds
        .iter()
        .enumerate()
        .filter_map(|(i, o)| o.map(|o| (i, if f.user_is_white { o.white } else { 100.0 - o.white })))
        .collect()
}

/// "23... Qxb2", as the reflection numbers its key moments.
fn label(f: &MatchFacts<'_>, i: usize) -> String {
    super::move_label(f, i).unwrap_or_default()
}

/// The player's score: 1 a win, 0.5 a draw, 0 a loss.
fn player_score(f: &MatchFacts<'_>) -> f64 {
    match f.end.winner() {
        None => 0.5,
        Some(w) if w.is_white() == f.user_is_white => 1.0,
        Some(_) => 0.0,
    }
}

fn swindle(f: &MatchFacts<'_>, date: &str) -> Option<Moment> {
    let pcts = player_pcts(f);
    let score = player_score(f);
    let player = f.player_name;
    let outcome = |score: f64| if score == 0.5 { "draw" } else { "win" };
    let low = pcts.iter().min_by(|a, b| a.1.total_cmp(&b.1)).copied();
    if let Some((i, pct)) = low.filter(|(_, p)| *p <= SWINDLE_PCT && score >= 0.5) {
        let content = format!(
            "On {date}, {player} swindled me: after {} I was at about {:.0}%, and {player} came back to {}.",
            label(f, i),
            100.0 - pct,
            outcome(score)
        );
        return Some(moment("swindle", content, 0.8));
    }
    let high = pcts.iter().max_by(|a, b| a.1.total_cmp(&b.1)).copied();
    let (i, pct) = high.filter(|(_, p)| *p >= 100.0 - SWINDLE_PCT && score <= 0.5)?;
    let content = format!(
        "On {date}, I swindled {player}: after {} {player} was at about {pct:.0}%, and I came back to {}.",
        label(f, i),
        outcome(1.0 - score)
    );
    Some(moment("swindle", content, 0.7))
}

fn stalemate_escape(f: &MatchFacts<'_>, date: &str) -> Option<Moment> {
    if f.end != GameEnd::Stalemate {
        return None;
    }
    let position: Chess = f
        .moves
        .last()?
        .fen_after
        .parse::<Fen>()
        .ok()?
        .into_position(shakmaty::CastlingMode::Standard)
        .ok()?;
    let material = |white: bool| -> i32 {
        let board = position.board();
        let side = if white { board.white() } else { board.black() };
        [
            (board.pawns(), 1),
            (board.knights(), 3),
            (board.bishops(), 3),
            (board.rooks(), 5),
            (board.queens(), 9),
        ]
        .iter()
        .map(|(set, value)| (*set & side).count() as i32 * value)
        .sum()
    };
    let player_up = material(f.user_is_white) - material(!f.user_is_white);
    let up = player_up.abs();
    if up < 3 {
        return None;
    }
    let what = match up {
        9.. => "a queen",
        5..=8 => "a rook",
        _ => "a piece",
    };
    let (player, last) = (f.player_name, label(f, f.moves.len() - 1));
    let content = match player_up > 0 {
        true => format!("On {date}, {player} was {what} up against me and let me escape with a stalemate ({last})."),
        false => format!("On {date}, I was {what} up and {player} escaped with a stalemate ({last})."),
    };
    Some(moment("stalemate", content, 0.8))
}

/// A blunder (by either side) the player laughed at within two moves.
fn laughed_blunder(f: &MatchFacts<'_>, lines: Lines<'_>, date: &str) -> Option<(usize, Moment)> {
    f.odds.iter().enumerate().find_map(|(i, o)| {
        let blunder = o.is_some_and(|o| o.class == MoveClass::Blunder);
        let said = lines
            .iter()
            .find(|(ply, line)| blunder && (i + 1..=i + 3).contains(ply) && (laughs(line) || oops(line)))?;
        let m = f.moves.get(i)?;
        let by_player = m.mover.is_white() == f.user_is_white;
        let who = if by_player { f.player_name } else { "I" };
        let content = format!(
            "On {date}, {who} blundered with {} and {} laughed it off: {}",
            label(f, i),
            f.player_name,
            quoted(&said.1)
        );
        Some((said.0, moment("laughed_blunder", content, 0.7)))
    })
}

fn oops(line: &str) -> bool {
    let l = line.to_lowercase();
    ["oops", "whoops", "oh no"].iter().any(|w| l.contains(w))
}

/// A line of the player's that laughs and says something (four words or more).
fn joke(f: &MatchFacts<'_>, lines: Lines<'_>, used: Option<usize>, date: &str) -> Option<Moment> {
    let (_, line) = lines
        .iter()
        .filter(|(ply, _)| Some(*ply) != used)
        .find(|(_, line)| laughs(line) && line.split_whitespace().count() >= 4)?;
    let content = format!("On {date}, {} made me laugh: {}", f.player_name, quoted(line));
    Some(moment("joke", content, 0.6))
}

fn moment(kind: &'static str, content: String, importance: f32) -> Moment {
    Moment {
        kind,
        content,
        importance,
    }
}

#[cfg(test)]
mod tests;
