//! The scripted voice on the board: who is better (the engine's odds),
//! whether the player's last move cost them, and why the persona played
//! its move (the board tools' reasons). Every answer is a fact of the game.

use crate::actions::{Action, Decision};
use crate::agent::BrainInput;
use crate::chess::Game;
use crate::chess::notation::{self, role_name};
use crate::chess::odds::MoveClass;
use crate::chess::tools::{Purpose, purposes};
use crate::triggers::{MoveFact, UserInput};

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

/// Whose move the reasons are told of: the persona's ("develops my
/// knight, attacks your pawn") or the player's ("develops your knight").
#[derive(Clone, Copy)]
enum Whose {
    Mine,
    Yours,
}

impl Whose {
    /// (the mover's pieces, the other side's), as the persona says them.
    fn owners(self) -> (&'static str, &'static str) {
        match self {
            Whose::Mine => ("my", "your"),
            Whose::Yours => ("your", "my"),
        }
    }
}

/// The reasons the board tools find for a move, from the position before it.
fn reasons(m: &MoveFact) -> Vec<Purpose> {
    reasons_in(&m.fen_before, &m.uci)
}

fn reasons_in(fen_before: &str, uci: &str) -> Vec<Purpose> {
    let Ok(before) = Game::new(Some(fen_before)) else {
        return Vec::new();
    };
    notation::parse_move(before.position(), uci).map_or_else(|_| Vec::new(), |mv| purposes(before.position(), mv))
}

/// "it threatens to win your pawn on e4 and develops my knight".
fn because(reasons: &[Purpose], whose: Whose) -> String {
    match said(reasons, whose).as_slice() {
        [] if matches!(whose, Whose::Mine) => "improves my position".to_string(),
        [] => "improve your position".to_string(),
        [one] => one.clone(),
        [one, two, ..] => format!("{one} and {two}"),
    }
}

/// "Nf6? Because it threatens to win your pawn on e4 and develops my knight."
fn explain(m: &MoveFact) -> String {
    format!("{}? Because it {}.", m.san, because(&reasons(m), Whose::Mine))
}

/// What the persona says to a control the player used: the engine's hint
/// for their move, or why its own last move (from its search and the board
/// tools). The same true words the model is given to say its way.
pub(crate) fn control_answer(input: &BrainInput<'_>) -> String {
    match &input.trigger.input {
        Some(UserInput::Hint { uci, san, win_pct, .. }) => {
            // The move quoted: it is a move to make, not one made.
            let why = because(&reasons_in(&input.ctx.fen, uci), Whose::Yours);
            let odds = win_pct.map_or(String::new(), |p| format!(" After it, about {p:.0}% for you."));
            format!("“{san}”: it would {why}.{odds}")
        }
        Some(UserInput::Explain) => match my_move(input, "") {
            Some(m) => {
                let mine = m.odds.map(|o| {
                    if input.ctx.user_color == "white" {
                        100.0 - o.white
                    } else {
                        o.white
                    }
                });
                let odds = mine.map_or(String::new(), |p| {
                    format!(" My search had me at about {p:.0}% after it.")
                });
                format!("{}{odds}", explain(m))
            }
            None => "I haven't made a move yet!".to_string(),
        },
        _ => String::new(),
    }
}

/// The control's answer as the persona's message; a second hint or more
/// gets a little teasing.
pub(super) fn control(input: &BrainInput<'_>) -> Decision {
    let answer = control_answer(input);
    let (thinking, text) = match &input.trigger.input {
        Some(UserInput::Hint { count, .. }) if *count > 1 => (
            format!("{} asked for hint {count}.", input.ctx.player_name),
            format!("Hint number {count}, {}? All right. {answer}", input.ctx.player_name),
        ),
        Some(UserInput::Hint { .. }) => (
            format!("{} asked for a hint.", input.ctx.player_name),
            format!("A hint? Try {answer}"),
        ),
        _ => (format!("{} asked why I played my move.", input.ctx.player_name), answer),
    };
    Decision {
        thinking: Some(thinking),
        actions: vec![Action::say(text, &input.persona.tones[0])],
    }
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
    match said(&threats, Whose::Mine).as_slice() {
        [] => format!("Nothing direct with {}. Yet.", m.san),
        [one] => format!("With {} it {one}.", m.san),
        [one, two, ..] => format!("With {} it {one} and {two}.", m.san),
    }
}

/// The reasons in words, pieces attacked alike told together ("attacks
/// your pawns on d2 and f2"), the two most telling.
fn said(reasons: &[Purpose], whose: Whose) -> Vec<String> {
    let theirs = whose.owners().1;
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
            other => out.push(phrase(other, whose)),
        }
    }
    let mut groups = grouped
        .into_iter()
        .map(|(hangs, targets)| format!("{} {theirs} {}", attack_verb(hangs, whose), targets_in_words(&targets)));
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

/// One reason in the persona's words, after "it": of its own move in the
/// present ("develops my knight"); of a move the player may make in the
/// bare form that follows "would" ("develop your knight"), worded so no
/// check or capture is claimed of the board as it is ("check my king").
fn phrase(p: &Purpose, whose: Whose) -> String {
    let (own, theirs) = whose.owners();
    let mine = matches!(whose, Whose::Mine);
    let v = |present: &'static str, bare: &'static str| if mine { present } else { bare };
    match p {
        Purpose::Mates => format!("{} the game", v("ends", "end")),
        Purpose::Promotes(role) => format!("{} a new {}", v("makes", "make"), role_name(*role)),
        Purpose::Takes { role, wins: true } => format!("{} {theirs} {}", v("wins", "win"), role_name(*role)),
        Purpose::Takes { role, wins: false } => format!("{} {theirs} {}", v("takes", "take"), role_name(*role)),
        Purpose::Forks(roles) => {
            let names: Vec<&str> = roles.iter().take(2).map(|r| role_name(*r)).collect();
            format!("{} {theirs} {}", v("forks", "fork"), names.join(" and "))
        }
        Purpose::Pins => format!("{} one of {theirs} pieces", v("pins", "pin")),
        Purpose::Skewers => format!("{} two of {theirs} pieces", v("skewers", "skewer")),
        Purpose::DiscoveredAttack => format!("{} an attack", v("uncovers", "uncover")),
        Purpose::ThreatensMate(_) => format!("{} mate", v("threatens", "threaten")),
        Purpose::Check if mine => "gives check".into(),
        Purpose::Check => format!("check {theirs} king"),
        Purpose::Attacks { role, square, hangs } => {
            format!(
                "{} {theirs} {} on {square}",
                attack_verb(*hangs, whose),
                role_name(*role)
            )
        }
        Purpose::Castles => format!("{} {own} king away safely", v("tucks", "tuck")),
        Purpose::Develops(role) => format!("{} {own} {}", v("develops", "develop"), role_name(*role)),
        Purpose::Centre => format!("{} for the centre", v("fights", "fight")),
    }
}

fn attack_verb(hangs: bool, whose: Whose) -> &'static str {
    match (hangs, whose) {
        (true, Whose::Mine) => "threatens to win",
        (true, Whose::Yours) => "threaten to win",
        (false, Whose::Mine) => "attacks",
        (false, Whose::Yours) => "attack",
    }
}
