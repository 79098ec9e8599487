use chrono::{Duration, TimeZone, Utc};

use super::progress::{Trend, progress, signed};
use super::*;

fn game(n: i64, persona_rating: f64, score: f64) -> RatedGame {
    RatedGame {
        match_id: MatchId::new(),
        persona_id: "margot".into(),
        persona_rating,
        score,
        played_at: Utc.with_ymd_and_hms(2026, 9, 1, 20, 0, 0).unwrap() + Duration::days(n),
    }
}

#[test]
fn scores_are_the_players_side_of_the_result() {
    assert_eq!(score("1-0", true), Some(1.0));
    assert_eq!(score("1-0", false), Some(0.0));
    assert_eq!(score("0-1", false), Some(1.0));
    assert_eq!(score("1/2-1/2", false), Some(0.5));
    assert_eq!(score("*", true), None);
}

#[test]
fn replaying_in_parts_equals_replaying_whole() {
    let games: Vec<RatedGame> = (0..40)
        .map(|n| game(n, 1200.0 + (n % 3) as f64 * 300.0, (n % 2) as f64))
        .collect();
    let whole = replay(None, &games);
    let first = replay(None, &games[..17]);
    let rest = replay(first.last(), &games[17..]);
    assert_eq!(whole, [first, rest].concat());
    assert!(whole[0].deviation < START.deviation);
}

#[test]
fn time_away_grows_the_deviation_before_the_next_game() {
    let soon = replay(None, &[game(0, 1500.0, 1.0), game(1, 1500.0, 1.0)]);
    let late = replay(None, &[game(0, 1500.0, 1.0), game(200, 1500.0, 1.0)]);
    assert_eq!(soon[0].standing(), late[0].standing());
    // More doubt before the second game: it moves the rating further.
    assert!(late[1].rating - late[0].rating > soon[1].rating - soon[0].rating);
}

#[test]
fn figures_read_as_a_player_writes_them() {
    assert_eq!(figure(1339.6), "1,340");
    assert_eq!(figure(987.0), "987");
    assert_eq!(figure(12345.0), "12,345");
    assert_eq!(signed(110.2), "+110");
    assert_eq!(signed(-35.0), "-35");
    assert_eq!(signed(0.3), "±0");
}

#[test]
fn progress_counts_from_a_month_ago_once_established() {
    // Wins every game against a 1500: the rating climbs all along.
    let games: Vec<RatedGame> = (0..12).map(|n| game(n * 5, 1500.0, 1.0)).collect();
    let history = replay(None, &games);
    let now = games.last().unwrap().played_at;
    let p = progress(&history, now).unwrap();
    let month_ago = history
        .iter()
        .rev()
        .find(|e| e.played_at <= now - Duration::days(30))
        .unwrap();
    let change = p.change.unwrap();
    assert_eq!(change.since, month_ago.played_at.date_naive());
    assert!((change.points - (p.rating - month_ago.rating)).abs() < 1e-9);
    assert!(p.personal_best && p.trend() == Trend::PersonalBest);
    assert!(!p.provisional && p.games == 12);
    let said = p.describe();
    assert!(said.starts_with(&format!("rating {} ± ", figure(p.rating))), "{said}");
    assert!(
        said.contains(&format!("{} since {}", signed(change.points), change.since)),
        "{said}"
    );
}

#[test]
fn a_new_player_has_no_trend_and_a_losing_run_is_a_slump() {
    let three: Vec<RatedGame> = (0..3).map(|n| game(n, 1500.0, 1.0)).collect();
    let p = progress(&replay(None, &three), three[2].played_at).unwrap();
    assert!(p.provisional && p.change.is_none() && p.best.is_none() && !p.personal_best);
    assert!(p.describe().contains("(provisional)"));
    assert!(progress(&[], Utc::now()).is_none());

    let mut games: Vec<RatedGame> = (0..8).map(|n| game(n, 1500.0, 0.5)).collect();
    games.extend((8..14).map(|n| game(n, 1200.0, 0.0)));
    let history = replay(None, &games);
    let p = progress(&history, games.last().unwrap().played_at).unwrap();
    assert_eq!(p.trend(), Trend::Slump, "{p:?}");
    assert!(p.last_change < 0.0 && !p.personal_best);
}
