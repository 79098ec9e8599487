//! What the persona says of the player's rating: only the figures the game
//! context holds (`triggers::Standing`, computed from the rating history),
//! never a guess. At the greeting: the strength it adapted to, or progress
//! worth a remark; after a rated game: what the game did to the rating.

use crate::rating::figure;
use crate::rating::progress::{Trend, signed};
use crate::triggers::{Adapted, GameContext};

/// A sentence for the greeting, if the rating gives one.
pub(super) fn at_greeting(ctx: &GameContext, seed: u64) -> Option<String> {
    if let Some(adapted) = &ctx.history.rating.adapted {
        return Some(adapting(adapted));
    }
    let p = ctx.history.rating.progress.as_ref()?;
    let now = figure(p.rating);
    let pick = |lines: [String; 2]| lines[(seed % 2) as usize].clone();
    let change = p.change?;
    let (points, since) = (figure(change.points.abs()), change.since.format("%-d %B"));
    match p.trend() {
        Trend::PersonalBest => Some(pick([
            format!("Your rating stands at {now}, a personal best. Let's see if it holds."),
            format!("{now}: the highest your rating has been. I shall not make it easy."),
        ])),
        Trend::Rising => Some(pick([
            format!("You have gained {points} points since {since}: {now} now. Someone has been practising."),
            format!("Your rating is up {points} since {since}, to {now}. I noticed."),
        ])),
        Trend::Slump => Some(pick([
            format!(
                "Your rating has slipped {points} since {since}, to {now}. It happens to everyone; let's turn it round."
            ),
            format!("{now} now, {points} down since {since}. A slump ends with one good game."),
        ])),
        Trend::Steady => None,
    }
}

/// What an adapted match must say at its start, whichever brain speaks.
pub(crate) fn adapted_notice(ctx: &GameContext) -> Option<String> {
    ctx.history.rating.adapted.as_ref().map(adapting)
}

/// "Tonight I play at about 1,420 ...": what adapting means, said once.
fn adapting(a: &Adapted) -> String {
    let yours = figure(a.player_rating);
    let how = if f64::from(a.plays_at) == a.player_rating.round() {
        format!("your own rating of {yours}")
    } else {
        format!("as close to your {yours} as my game goes")
    };
    format!(
        "Tonight I play at about {}, {how}, so it should be an even game. It won't count for your rating.",
        figure(f64::from(a.plays_at))
    )
}

/// After a rated game: "That makes your rating 1,352 (+12)."
pub(super) fn after_game(ctx: &GameContext) -> Option<String> {
    let change = ctx.history.rating.this_match?;
    let p = ctx.history.rating.progress.as_ref()?;
    let best = if p.personal_best { " A personal best." } else { "" };
    Some(format!(
        "That makes your rating {} ({}).{best}",
        figure(p.rating),
        signed(change)
    ))
}

/// Whether a line asks about the player's own rating or progress.
pub(super) fn asks_own_rating(text: &str) -> bool {
    let t = text.to_lowercase();
    let own = [
        "my rating",
        "my elo",
        "my progress",
        "how am i doing",
        "am i improving",
        "am i getting better",
    ];
    own.iter().any(|w| t.contains(w))
}

/// The player's rating told when asked: the figures, or that there are none.
pub(super) fn told(ctx: &GameContext) -> String {
    let Some(p) = ctx.history.rating.progress.as_ref() else {
        return "You have no rated games yet: everyone starts at 1,500 until the games say otherwise.".into();
    };
    let mut out = format!("Your rating is {}", p.standing());
    match p.change {
        Some(c) => out.push_str(&format!(", {} since {}.", signed(c.points), c.since.format("%-d %B"))),
        None => out.push('.'),
    }
    out
}

#[cfg(test)]
mod tests {
    use chrono::{Duration, TimeZone, Utc};

    use super::*;
    use crate::ids::MatchId;
    use crate::rating::{RatedGame, progress::progress, replay};
    use crate::triggers::{Standing, test_context};

    fn with_history(scores: &[f64], now_days: i64) -> GameContext {
        let start = Utc.with_ymd_and_hms(2026, 9, 1, 19, 0, 0).unwrap();
        let games: Vec<RatedGame> = scores
            .iter()
            .enumerate()
            .map(|(n, &score)| RatedGame {
                match_id: MatchId::new(),
                persona_id: "margot".into(),
                persona_rating: 1500.0,
                score,
                played_at: start + Duration::days(3 * n as i64),
            })
            .collect();
        let history = replay(None, &games);
        let mut ctx = test_context(&[], &[]);
        let last = history.last().unwrap();
        let before = history[history.len() - 2].rating;
        ctx.history.rating = Standing {
            progress: progress(&history, start + Duration::days(now_days)),
            this_match: Some(last.rating - before),
            adapted: None,
        };
        ctx
    }

    #[test]
    fn progress_is_said_with_the_figures_of_the_history() {
        let ctx = with_history(&[0.5; 6].iter().chain(&[1.0; 8]).copied().collect::<Vec<_>>(), 42);
        let p = ctx.history.rating.progress.clone().unwrap();
        let said = at_greeting(&ctx, 0).unwrap();
        assert!(said.contains(&figure(p.rating)), "{said}");
        if p.trend() == Trend::Rising {
            assert!(said.contains(&figure(p.change.unwrap().points)), "{said}");
        }
        let after = after_game(&ctx).unwrap();
        assert!(after.contains(&figure(p.rating)) && after.contains('+'), "{after}");
    }

    #[test]
    fn asked_about_their_rating_the_persona_gives_the_figures() {
        assert!(asks_own_rating("What's my rating now?") && asks_own_rating("am I improving?"));
        assert!(!asks_own_rating("what is your rating?"));
        let ctx = with_history(&[0.5; 6].iter().chain(&[1.0; 8]).copied().collect::<Vec<_>>(), 42);
        let p = ctx.history.rating.progress.clone().unwrap();
        let said = told(&ctx);
        assert!(
            said.starts_with(&format!("Your rating is {} ± ", figure(p.rating))),
            "{said}"
        );
        assert!(said.contains(&signed(p.change.unwrap().points)), "{said}");
        assert!(told(&test_context(&[], &[])).contains("no rated games yet"));
    }

    #[test]
    fn a_steady_rating_is_not_remarked_on_and_a_slump_is() {
        let steady = with_history(&[0.5; 12], 36);
        assert_eq!(at_greeting(&steady, 1), None);
        let slump = with_history(&[0.5; 6].iter().chain(&[0.0; 8]).copied().collect::<Vec<_>>(), 42);
        let said = at_greeting(&slump, 1).unwrap();
        assert!(said.contains("down since") || said.contains("slipped"), "{said}");
    }

    #[test]
    fn an_adapted_match_says_its_strength_and_that_it_is_not_rated() {
        let mut ctx = test_context(&[], &[]);
        ctx.history.rating.adapted = Some(Adapted {
            plays_at: 1400,
            card_elo: 1200,
            player_rating: 1500.0,
        });
        let said = at_greeting(&ctx, 0).unwrap();
        assert!(
            said.contains("1,400") && said.contains("1,500") && said.contains("won't count"),
            "{said}"
        );
        ctx.history.rating.adapted.as_mut().unwrap().plays_at = 1500;
        assert!(at_greeting(&ctx, 0).unwrap().contains("your own rating of 1,500"));
        assert_eq!(after_game(&ctx), None);
    }
}
