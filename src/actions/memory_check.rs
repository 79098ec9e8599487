//! A memory is checked before it is kept, as words about the board are
//! before they are said: what it states of this match (its result, a move,
//! the date) must be true of it, and a memory about the player must say
//! something about the player, not restate the situation or describe the
//! persona. A model given the game as context will otherwise write "The
//! game ends in a draw." mid-game, or its own prompt back as a "fact".

use super::claims::{bare, blank_quotes, san_tokens, words};
use crate::chess::openings;
use crate::memory::MemoryType;
use crate::triggers::GameContext;

/// Why `content` may not be kept as a memory of this match, if it may not.
pub fn refusal(content: &str, kind: MemoryType, ctx: &GameContext, persona: &str) -> Option<Refusal> {
    // A quote is someone's words, not a claim of the memory's own.
    let text = blank_quotes(content);
    let words = words(&text);
    let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    // "Ann won the county championship" is no claim about this match.
    let of_this_match = has(&["game", "match", "me", "us", "against", "i"]) && !counts_games(&words, &ctx.player_name);
    if let Some(why) = result_claim(&words, ctx).filter(|_| of_this_match) {
        return Some(Refusal::new(Check::Result, why));
    }
    if let Some(san) = san_tokens(&text)
        .into_iter()
        .find(|san| {
            !ctx.last_moves
                .iter()
                .chain(&ctx.planned_move)
                .any(|m| bare(&m.san) == *san)
        })
        .filter(|_| !has(PAST) && !has(TASTES))
    {
        return Some(Refusal::new(Check::Move, format!("{san} was not played in this game")));
    }
    if let Some(why) = history_claim(&text, &words, ctx) {
        return Some(Refusal::new(Check::Record, why));
    }
    if let Some(why) = opening_claim(&text, &words, ctx) {
        return Some(Refusal::new(Check::Opening, why));
    }
    // A birthday may be any day; a match's record is dated today.
    let a_record = matches!(kind, MemoryType::GameContext | MemoryType::Streak);
    if let Some(day) = named_day(&text).filter(|d| a_record && *d != ctx.now.date_naive()) {
        return Some(Refusal::new(
            Check::Date,
            format!("it is dated {day}, but this match is today"),
        ));
    }
    let about_player = matches!(
        kind,
        MemoryType::PlayerBehavior | MemoryType::PlayerObservation | MemoryType::PersonalNote
    );
    if about_player {
        let name = ctx.player_name.to_lowercase();
        let names_player = text.to_lowercase().contains(&name) || has(&["they", "their", "them", "player"]);
        if !names_player {
            let why = format!("a memory of {} must be about them", ctx.player_name);
            return Some(Refusal::new(Check::NotAboutThePlayer, why));
        }
        if SITUATION.iter().any(|s| text.to_lowercase().contains(s)) {
            let why = "it restates the situation, it tells nothing of the player";
            return Some(Refusal::new(Check::Situation, why.into()));
        }
        let about_persona = text.to_lowercase().starts_with(&persona.to_lowercase()) || has(&["i", "me", "my"]);
        if about_persona && !text.to_lowercase().starts_with(&name) {
            let why = format!("it describes {persona}, not {}", ctx.player_name);
            return Some(Refusal::new(Check::AboutThePersona, why));
        }
    }
    None
}

/// Which check refused a memory (a metric's reason, by its name).
#[derive(Debug, Clone, Copy, PartialEq, Eq, strum::IntoStaticStr, strum::EnumIter)]
pub enum Check {
    /// It states a result this match does not have.
    #[strum(serialize = "wrong_result")]
    Result,
    /// It names a move not played.
    #[strum(serialize = "move_not_played")]
    Move,
    /// It states a record (a streak, a score) the games do not show.
    #[strum(serialize = "wrong_record")]
    Record,
    /// It names an opening this game was not.
    #[strum(serialize = "wrong_opening")]
    Opening,
    /// A match record dated another day.
    #[strum(serialize = "wrong_date")]
    Date,
    #[strum(serialize = "not_about_the_player")]
    NotAboutThePlayer,
    /// It restates the situation.
    #[strum(serialize = "restates_the_situation")]
    Situation,
    /// It describes the persona.
    #[strum(serialize = "about_the_persona")]
    AboutThePersona,
}

impl Check {
    pub fn as_str(self) -> &'static str {
        self.into()
    }
}

/// A memory refused: by which check, and why in words.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub check: Check,
    pub why: String,
}

impl Refusal {
    fn new(check: Check, why: String) -> Refusal {
        Refusal { check, why }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.why)
    }
}

/// Words that place a claim in an earlier game.
const PAST: &[&str] = &[
    "last",
    "previous",
    "previously",
    "before",
    "earlier",
    "usually",
    "always",
    "often",
    "again",
    "times",
    "row",
    "ago",
    "yesterday",
];

/// Words of a taste, not of a move played: "Ann likes to play Bc4".
const TASTES: &[&str] = &[
    "likes",
    "like",
    "loves",
    "love",
    "favourite",
    "favorite",
    "prefers",
    "prefer",
    "enjoys",
    "tends",
];

/// How a restated situation reads: the prompt's scene, not a fact.
const SITUATION: &[&str] = &[
    "playing a game",
    "a game of chess against",
    "member of a chess club",
    "member of the chess club",
    "is to move",
    "it is my move",
    "it's my move",
    "it is your move",
    "the current position",
    "the game is in progress",
    "is playing against",
];

/// A result stated of this match must be its result, and none before it ends.
fn result_claim(words: &[String], ctx: &GameContext) -> Option<String> {
    let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    if has(PAST) {
        return None;
    }
    let claims = [
        (has(&["draw", "drew", "drawn", "drawing"]), None),
        (has(&["beat", "won", "wins", "defeated"]), Some(true)),
        (has(&["lost", "loses", "resigned", "resigns"]), Some(false)),
    ];
    let stated: Vec<Option<bool>> = claims.iter().filter(|(yes, _)| *yes).map(|(_, r)| *r).collect();
    let first = stated.first()?;
    let Some(end) = &ctx.end else {
        return Some("it states a result, but the game is still on".into());
    };
    // "lost to me" / "beat me": whose win is read from the memory's subject,
    // so only a draw said of a decided game (or the reverse) is plainly false.
    let decided = end.user_won.is_some();
    match (first, decided) {
        (None, true) => Some(format!("it says a draw, but the game ended {}", end.result)),
        (Some(_), false) if stated.iter().all(|r| r.is_some()) => {
            Some(format!("it says someone won, but the game was drawn ({})", end.result))
        }
        _ => None,
    }
}

/// Words that make a number a streak: "3 in a row".
const STREAK: &[&str] = &["row", "straight", "streak", "consecutive", "running"];
/// Words that make a number a count of games: "won 4 games".
const COUNTED: &[&str] = &[
    "game", "games", "match", "matches", "win", "wins", "loss", "losses", "draw", "draws", "times",
];
/// Words that make "N-M" a score between the two.
const SCORE: &[&str] = &[
    "score", "scores", "record", "leads", "lead", "ahead", "behind", "trails", "overall",
];

/// A number of games, wins, losses or a streak must be one the history
/// (with this game, once it is over) has: a model told "played: 2" will
/// otherwise keep "Ann has beaten me five times".
fn history_claim(text: &str, words: &[String], ctx: &GameContext) -> Option<String> {
    let h = &ctx.history;
    // Each count as it was before this game and as it is after it.
    let ended = ctx.end.as_ref().map_or(0, |_| 1);
    let tallies = [h.played, h.user_wins, h.user_losses, h.draws];
    let allowed: Vec<u32> = tallies.iter().flat_map(|&n| [n, n + ended]).collect();
    let streak = h.streak.as_ref().map_or(0, |(_, n)| *n);
    let streaks = [streak, streak + ended, ended];
    let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    if has(SCORE)
        && let Some((a, b)) = text.split_whitespace().find_map(score)
    {
        let pairs = [(h.user_wins, h.user_losses), (h.user_losses, h.user_wins)];
        let fits = pairs
            .iter()
            .any(|&(x, y)| [(x, y), (x + ended, y), (x, y + ended)].contains(&(a, b)));
        if !fits {
            return Some(format!(
                "it says the score is {a}-{b}, but the games so far say otherwise"
            ));
        }
    }
    for (n, count) in counts(words, &ctx.player_name) {
        match count {
            Count::Streak if !streaks.contains(&n) => {
                return Some(format!("it says {n} in a row, but the streak is {streak}"));
            }
            Count::Games if !allowed.contains(&n) => {
                let played = h.played + ended;
                return Some(format!("it counts {n}, but {played} games have been played"));
            }
            _ => {}
        }
    }
    None
}

/// What a number in a memory counts.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Count {
    /// "3 in a row", "two straight".
    Streak,
    /// "five times", "2 games", "3 more wins".
    Games,
}

/// The numbers that count games or a streak, with where they stand: the
/// counted word right after the number (or one word on), a streak's within
/// four ("4 games in a row"). A number in the player's name ("Player 761") counts nothing.
fn counts(words: &[String], player: &str) -> Vec<(u32, Count)> {
    let name = super::claims::words(player);
    let after = |i: usize, n: usize| &words[(i + 1).min(words.len())..words.len().min(i + 1 + n)];
    let any = |w: &[String], list: &[&str]| w.iter().any(|w| list.contains(&w.as_str()));
    words
        .iter()
        .enumerate()
        .filter(|(_, w)| !name.contains(w))
        .filter_map(|(i, w)| {
            let n = number(w)?;
            let count = match () {
                _ if any(after(i, 4), STREAK) => Count::Streak,
                _ if any(after(i, 2), COUNTED) => Count::Games,
                _ => return None,
            };
            Some((n, count))
        })
        .collect()
}

/// Whether the words count games ("lost two games", "3 in a row"): then
/// they speak of the history, which `history_claim` checks, not of this game.
fn counts_games(words: &[String], player: &str) -> bool {
    !counts(words, player).is_empty()
}

/// "3-1" (or "3–1") as two numbers.
fn score(word: &str) -> Option<(u32, u32)> {
    let word = word.trim_matches(|c: char| !c.is_ascii_digit());
    let (a, b) = word.split_once(['-', '–'])?;
    Some((a.parse().ok()?, b.parse().ok()?))
}

/// A count in digits or in words, up to twelve.
fn number(word: &str) -> Option<u32> {
    const NAMES: [&str; 12] = [
        "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve",
    ];
    let named = NAMES.iter().position(|n| *n == word).map(|i| i as u32 + 1);
    named.or_else(|| word.parse().ok().filter(|n| *n < 1000))
}

/// Words that say an opening was played in this game.
const PLAYED: &[&str] = &["played", "opened", "chose", "went", "answered", "replied", "tried"];

/// An opening said to be played in this game must be the one its moves are.
fn opening_claim(text: &str, words: &[String], ctx: &GameContext) -> Option<String> {
    let has = |list: &[&str]| words.iter().any(|w| list.contains(&w.as_str()));
    if !has(PLAYED) || has(PAST) || has(TASTES) {
        return None;
    }
    let named = openings::book().named(text);
    let actual = ctx.opening_name.as_ref().map(|o| o.family());
    let wrong = named.iter().find(|f| Some(f.name.as_str()) != actual)?;
    Some(match actual {
        Some(actual) => format!("it names the {}, but this game is the {actual}", wrong.name),
        None => format!("it names the {}, but no opening of that name was played", wrong.name),
    })
}

/// A date written out ("25 November 2026", "November 25, 2026").
fn named_day(text: &str) -> Option<chrono::NaiveDate> {
    let w = words(text);
    for (i, word) in w.iter().enumerate() {
        let Ok(month) = word.parse::<chrono::Month>() else {
            continue;
        };
        let number = |j: Option<usize>| j.and_then(|j| w.get(j)).and_then(|t| t.parse::<u32>().ok());
        let (day, year) = match (number(i.checked_sub(1)), number(Some(i + 1)), number(Some(i + 2))) {
            (Some(d), Some(y), _) if y > 31 => (d, y),
            (_, Some(d), Some(y)) if d <= 31 && y > 31 => (d, y),
            _ => continue,
        };
        return chrono::NaiveDate::from_ymd_opt(year as i32, month.number_from_month(), day);
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::triggers::{EndFact, test_context};

    fn game_of(sans: &[&str]) -> crate::chess::Game {
        let mut game = crate::chess::Game::new(None).unwrap();
        for san in sans {
            let m = game.parse(san).unwrap();
            game.play(m);
        }
        game
    }

    fn refused(content: &str, kind: MemoryType, ctx: &GameContext) -> Option<String> {
        refusal(content, kind, ctx, "Pip").map(|r| r.why)
    }

    #[test]
    fn what_a_model_wrote_of_the_moment_is_refused() {
        let ctx = test_context(&["e4", "e5", "Nf3"], &[]);
        let cases = [
            (
                "The game ends in a draw.",
                MemoryType::GameContext,
                "still on",
                Check::Result,
            ),
            (
                "Ann, a member of a chess club, playing a game of chess against Ann a",
                MemoryType::PlayerObservation,
                "restates",
                Check::Situation,
            ),
            (
                "Ann played Qh5 early.",
                MemoryType::PlayerBehavior,
                "Qh5 was not played",
                Check::Move,
            ),
            (
                "On 3 March 2021, Ann played White.",
                MemoryType::GameContext,
                "dated",
                Check::Date,
            ),
            (
                "I love a sharp gambit.",
                MemoryType::PlayerBehavior,
                "about them",
                Check::NotAboutThePlayer,
            ),
            (
                "Pip thinks Ann is tricky.",
                MemoryType::PlayerObservation,
                "describes Pip",
                Check::AboutThePersona,
            ),
        ];
        for (content, kind, why, check) in cases {
            let refused = refusal(content, kind, &ctx, "Pip");
            assert!(
                refused
                    .as_ref()
                    .is_some_and(|r| r.why.contains(why) && r.check == check),
                "{content}: {refused:?}"
            );
        }
    }

    #[test]
    fn true_facts_of_the_match_and_the_player_are_kept() {
        let mut ctx = test_context(&["e4", "e5", "Nf3"], &[]);
        let today = ctx.now.format("%-d %B %Y");
        let kept = [
            ("Ann opened with Nf3 after e4 e5.", MemoryType::PlayerBehavior),
            ("Ann learned chess from their dad.", MemoryType::PlayerObservation),
            (
                "Ann's favourite opening is the Italian Game.",
                MemoryType::PlayerBehavior,
            ),
            ("Ann won our last game by checkmate.", MemoryType::GameContext),
            ("Ann has lost 2 matches in a row against me.", MemoryType::Streak),
            (
                "Ann won the county championship in 2019.",
                MemoryType::PlayerObservation,
            ),
            ("Ann likes to play Bc4 in the Italian.", MemoryType::PlayerBehavior),
            ("Ann's birthday is 3 March 1990.", MemoryType::PersonalNote),
        ];
        ctx.history.played = 2;
        ctx.history.user_losses = 2;
        ctx.history.streak = Some(("user_lost".into(), 2));
        ctx.opening_name = openings::book()
            .classify(&game_of(&["e4", "e5", "Nf3", "Nc6", "Bc4"]))
            .cloned();
        let more = [
            ("Ann has lost two games against me.", MemoryType::Streak),
            (
                "Ann has lost 2 matches in a row against me, 38 moves last time.",
                MemoryType::Streak,
            ),
            ("Ann played the Italian Game today.", MemoryType::PlayerBehavior),
        ];
        for (content, kind) in kept.into_iter().chain(more) {
            assert_eq!(refused(content, kind, &ctx), None, "{content}");
        }
        let false_counts = [
            ("Ann has beaten me five times.", "counts 5"),
            ("Ann has lost 4 games in a row to me.", "4 in a row"),
            ("Ann leads the overall score 3-1.", "score is 3-1"),
            ("Ann played the Sicilian Defense against me.", "names the Sicilian"),
        ];
        for (content, why) in false_counts {
            let refused = refused(content, MemoryType::GameContext, &ctx);
            assert!(
                refused.as_deref().is_some_and(|r| r.contains(why)),
                "{content}: {refused:?}"
            );
        }
        ctx.end = Some(EndFact {
            result: "0-1",
            termination: "resignation",
            user_won: Some(false),
        });
        let result = format!("On {today}, Ann played White and lost to me by resignation after 2 moves.");
        assert_eq!(refused(&result, MemoryType::GameContext, &ctx), None);
        let wrong = refused("Ann and I drew today.", MemoryType::GameContext, &ctx);
        assert!(wrong.is_some_and(|w| w.contains("draw")));
    }
}
