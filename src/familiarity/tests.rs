//! Familiarity over simulated histories: stages reached, faded by absence,
//! cooled by rudeness; the absence in words.

use chrono::{Duration, TimeZone};

use super::*;

fn game(day: i64, finished: bool, shared: u32, courteous: u32, rude: u32) -> Together {
    Together {
        match_id: MatchId::new(),
        played_at: Utc.with_ymd_and_hms(2026, 1, 1, 20, 0, 0).unwrap() + Duration::days(day),
        finished,
        hard_fought: false,
        shared,
        courteous,
        rude,
    }
}

/// Weekly games, each finished, with the player telling something every
/// `share_every`th game and polite throughout.
fn weekly(n: i64, share_every: i64) -> Vec<Together> {
    (0..n)
        .map(|i| game(7 * i, true, u32::from(i % share_every == 0), 1, 0))
        .collect()
}

fn stage_after(games: &[Together], days_later: i64) -> Familiarity {
    let history = replay(games);
    let now = games.last().unwrap().played_at + Duration::days(days_later);
    Familiarity::of(&history, &Thresholds::default(), now)
}

#[test]
fn ten_weekly_games_make_an_old_friend_through_every_stage() {
    let games = weekly(10, 3);
    let stages: Vec<Stage> = (1..=games.len()).map(|n| stage_after(&games[..n], 1).stage).collect();
    assert_eq!(stages[0], Stage::Acquaintance, "{stages:?}");
    assert!(stages.contains(&Stage::Regular), "{stages:?}");
    assert_eq!(stages[9], Stage::OldFriend, "{stages:?}");
    assert!(
        stages.windows(2).all(|w| w[0] <= w[1]),
        "never back while they keep coming: {stages:?}"
    );
}

#[test]
fn nobody_is_a_stranger_with_no_games_and_the_next_stage_is_one_game_away() {
    let f = Familiarity::of(&[], &Thresholds::default(), Utc::now());
    assert_eq!(f.stage, Stage::Stranger);
    assert_eq!((f.games, f.days_away, f.long_absence), (0, None, false));
    assert_eq!((f.next, f.points_to_next), (Some(Stage::Acquaintance), Some(1.0)));
}

#[test]
fn within_the_day_of_a_game_the_stage_is_the_one_that_game_reached() {
    // One game that just reaches the first stage: an hour later the player
    // is still an acquaintance, as the history says, not a stranger "0.0
    // points" short of it.
    let games = [game(0, true, 0, 0, 0)];
    let history = replay(&games);
    let thresholds = Thresholds {
        acquaintance: history[0].points,
        ..Thresholds::default()
    };
    let later = games[0].played_at + Duration::hours(3);
    let f = Familiarity::of(&history, &thresholds, later);
    assert_eq!(f.stage, thresholds.stage(history[0].points));
    assert_eq!(f.stage, Stage::Acquaintance, "{f:?}");
    assert!(f.points_to_next.is_some_and(|p| p > 0.0), "{f:?}");
}

#[test]
fn an_unfinished_game_alone_leaves_a_stranger() {
    let f = stage_after(&[game(0, false, 0, 0, 0)], 1);
    assert_eq!((f.stage, f.games), (Stage::Stranger, 0));
}

#[test]
fn time_apart_fades_it_and_a_long_absence_is_noticed() {
    let games = weekly(10, 3);
    let soon = stage_after(&games, 3);
    assert!(!soon.long_absence);
    let later = stage_after(&games, 21);
    assert!(later.long_absence, "{later:?}");
    assert_eq!(later.absence_words(), "three weeks");
    let year = stage_after(&games, 400);
    assert!(year.points < soon.points / 3.0, "{year:?} vs {soon:?}");
    assert!(year.stage < Stage::OldFriend, "{year:?}");
}

#[test]
fn trash_talk_cools_it_and_sharing_warms_it() {
    let rude: Vec<Together> = (0..6).map(|i| game(7 * i, true, 0, 0, 2)).collect();
    assert_eq!(stage_after(&rude, 1).stage, Stage::Stranger);
    let quiet: Vec<Together> = (0..6).map(|i| game(7 * i, true, 0, 0, 0)).collect();
    let open: Vec<Together> = (0..6).map(|i| game(7 * i, true, 1, 1, 0)).collect();
    assert!(stage_after(&open, 1).points > stage_after(&quiet, 1).points);
    assert!(stage_after(&open, 1).stage > stage_after(&quiet, 1).stage);
}

#[test]
fn a_warmer_persona_gets_there_sooner() {
    let warm = Thresholds {
        acquaintance: 1.0,
        regular: 3.0,
        old_friend: 6.0,
        long_absence_days: 10,
    };
    let games = weekly(5, 2);
    let history = replay(&games);
    let now = games[4].played_at;
    assert!(Familiarity::of(&history, &warm, now).stage > Familiarity::of(&history, &Thresholds::default(), now).stage);
}

#[test]
fn thresholds_must_rise() {
    assert!(Thresholds::default().check().is_ok());
    let bad = Thresholds {
        regular: 0.5,
        ..Thresholds::default()
    };
    assert!(bad.check().unwrap_err().contains("must rise"));
}

#[test]
fn an_absence_is_said_as_a_person_says_it() {
    let said: Vec<String> = [1, 5, 14, 20, 31, 60, 200, 365, 800]
        .into_iter()
        .map(absence_words)
        .collect();
    assert_eq!(
        said,
        [
            "a day",
            "five days",
            "two weeks",
            "three weeks",
            "a month",
            "two months",
            "seven months",
            "a year",
            "two years"
        ]
    );
}
