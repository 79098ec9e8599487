//! The scripted voice on the board: who is better (the engine's odds),
//! whether the player's last move cost them, and why the persona played
//! its move (the board tools' reasons). Every answer is a fact of the game.

use crate::agent::BrainInput;
use crate::chess::Game;
use crate::chess::notation::{self, role_name};
use crate::chess::odds::MoveClass;
use crate::chess::tools::{Purpose, purposes};
use crate::triggers::MoveFact;

/// The player's winning chances by the last evaluation, in percent.
pub(super) fn user_win_pct(input: &BrainInput<'_>) -> Option<f64> {
    let white = input.ctx.last_moves.iter().rev().find_map(|m| m.odds)?.white;
    Some(if input.ctx.user_color == "white" {
        white
    } else {
        100.0 - white
    })
}

/// Who is better, whether the last move was a mistake, why the persona's
/// move, what it threatens.
pub(super) fn about_the_board(input: &BrainInput<'_>, text: &str) -> String {
    let t = text.to_lowercase();
    let judged = ["blunder", "mistake", "good move", "bad move", "was that"]
        .iter()
        .any(|w| t.contains(w));
    if judged && let Some(verdict) = judge_their_move(input) {
        return verdict;
    }
    if t.contains("threat")
        && let Some(m) = my_move(input, &t)
    {
        return threat_of(m);
    }
    if (t.contains("why") || t.contains("idea") || t.contains("point of"))
        && let Some(m) = my_move(input, &t)
    {
        return explain(m);
    }
    match user_win_pct(input) {
        Some(p) if p >= 65.0 => format!("You're better here: about {p:.0}% for you."),
        Some(p) if p <= 35.0 => format!("I'm better here: about {:.0}% for me.", 100.0 - p),
        Some(_) => "It's about level.".into(),
        None => "Too early to say: it's all to play for.".into(),
    }
}

/// The player's last move, by what the engine's odds say it cost.
fn judge_their_move(input: &BrainInput<'_>) -> Option<String> {
    let m = input.ctx.last_moves.iter().rev().find(|m| m.by_user)?;
    Some(match m.odds.map(|o| o.class) {
        Some(MoveClass::Blunder) => format!("{} was a blunder, I'm afraid.", m.san),
        Some(MoveClass::Mistake) => format!("{} was a mistake: it cost you.", m.san),
        Some(MoveClass::Inaccuracy) => format!("{} was a little inaccurate, nothing worse.", m.san),
        Some(MoveClass::Good) => format!("{} was fine, no harm done.", m.san),
        None => format!("Too early to judge {}.", m.san),
    })
}

/// The persona's move the line names ("why Nf6?"), else its latest.
fn my_move<'a>(input: &'a BrainInput<'_>, asked: &str) -> Option<&'a MoveFact> {
    let mut mine = input.ctx.last_moves.iter().rev().filter(|m| !m.by_user);
    let named = mine.clone().find(|m| {
        let san = m.san.trim_end_matches(['+', '#']).to_lowercase();
        asked
            .split(|c: char| !c.is_alphanumeric() && c != '-')
            .any(|w| w == san)
    });
    named.or_else(|| mine.next())
}

/// The reasons the board tools find for a move, from the position before it.
fn reasons(m: &MoveFact) -> Vec<Purpose> {
    let Ok(before) = Game::new(Some(&m.fen_before)) else {
        return Vec::new();
    };
    notation::parse_move(before.position(), &m.uci).map_or_else(|_| Vec::new(), |mv| purposes(before.position(), mv))
}

/// "Nf6? Because it threatens to win your pawn on e4 and develops my knight."
fn explain(m: &MoveFact) -> String {
    let why = match said(&reasons(m)).as_slice() {
        [] => "improves my position".to_string(),
        [one] => one.clone(),
        [one, two, ..] => format!("{one} and {two}"),
    };
    format!("{}? Because it {why}.", m.san)
}

/// What the persona's move threatens, if anything.
fn threat_of(m: &MoveFact) -> String {
    let threats: Vec<Purpose> = reasons(m)
        .into_iter()
        .filter(|p| {
            matches!(
                p,
                Purpose::ThreatensMate(_) | Purpose::Forks(_) | Purpose::Attacks { .. }
            )
        })
        .collect();
    match said(&threats).as_slice() {
        [] => format!("Nothing direct with {}. Yet.", m.san),
        [one] => format!("With {} it {one}.", m.san),
        [one, two, ..] => format!("With {} it {one} and {two}.", m.san),
    }
}

/// The reasons in words, pieces attacked alike told together ("attacks
/// your pawns on d2 and f2"), the two most telling.
fn said(reasons: &[Purpose]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    let mut grouped: Vec<(bool, Vec<(shakmaty::Role, shakmaty::Square)>)> = Vec::new();
    for p in reasons {
        match p {
            Purpose::Attacks { role, square, hangs } => match grouped.iter_mut().find(|(h, _)| h == hangs) {
                Some((_, targets)) => targets.push((*role, *square)),
                None => {
                    grouped.push((*hangs, vec![(*role, *square)]));
                    out.push(String::new()); // its place in the order
                }
            },
            other => out.push(phrase(other)),
        }
    }
    let mut groups = grouped.into_iter().map(|(hangs, targets)| {
        let verb = if hangs { "threatens to win" } else { "attacks" };
        format!("{verb} your {}", targets_in_words(&targets))
    });
    for slot in out.iter_mut().filter(|s| s.is_empty()) {
        *slot = groups.next().unwrap_or_default();
    }
    out.truncate(2);
    out
}

/// "pawn on e4", "pawns on d2 and f2", "knight on f3 and pawn on d2".
fn targets_in_words(targets: &[(shakmaty::Role, shakmaty::Square)]) -> String {
    let targets = &targets[..targets.len().min(2)];
    match targets {
        [(a, x), (b, y)] if a == b => format!("{}s on {x} and {y}", role_name(*a)),
        [(a, x), (b, y)] => format!("{} on {x} and {} on {y}", role_name(*a), role_name(*b)),
        [(a, x), ..] => format!("{} on {x}", role_name(*a)),
        [] => String::new(),
    }
}

/// One reason in the persona's words, after "it".
fn phrase(p: &Purpose) -> String {
    match p {
        Purpose::Mates => "ends the game".into(),
        Purpose::Promotes(role) => format!("makes a new {}", role_name(*role)),
        Purpose::Takes { role, wins: true } => format!("wins your {}", role_name(*role)),
        Purpose::Takes { role, wins: false } => format!("takes your {}", role_name(*role)),
        Purpose::Forks(roles) => {
            let names: Vec<&str> = roles.iter().take(2).map(|r| role_name(*r)).collect();
            format!("forks your {}", names.join(" and "))
        }
        Purpose::Pins => "pins one of your pieces".into(),
        Purpose::Skewers => "skewers two of your pieces".into(),
        Purpose::DiscoveredAttack => "uncovers an attack".into(),
        Purpose::ThreatensMate(_) => "threatens mate".into(),
        Purpose::Check => "gives check".into(),
        Purpose::Attacks { role, square, hangs } => {
            let verb = if *hangs { "threatens to win" } else { "attacks" };
            format!("{verb} your {} on {square}", role_name(*role))
        }
        Purpose::Castles => "tucks my king away safely".into(),
        Purpose::Develops(role) => format!("develops my {}", role_name(*role)),
        Purpose::Centre => "fights for the centre".into(),
    }
}
