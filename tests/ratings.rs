//! Ratings (issue 35): the live updates and `kibitz ratings rebuild` agree
//! over hundreds of games, the games that must not count do not, and a
//! player sees their rating where they look: the API, the match's events,
//! the greeting of an adaptive match, the reflection and the CLI.

mod common;

use chrono::{Duration, TimeZone, Utc};
use common::*;
use kibitz::ids::{MatchId, PlayerId};
use kibitz::rating::{self, ledger};
use kibitz::store::{Db, NewMatch};
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};

const START_FEN: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
const SET_FEN: &str = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1";
const PERSONAS: [(&str, u32); 3] = [("pip", 1200), ("margot", 1500), ("viktor", 1800)];

fn card_elo(id: &str) -> Option<u32> {
    PERSONAS.iter().find(|(p, _)| *p == id).map(|(_, e)| *e)
}

/// A database for this test: PostgreSQL in the suite's PostgreSQL phase.
async fn database(dir: &std::path::Path) -> Db {
    let url = match test_postgres() {
        Some(admin) => postgres_database(&admin).await,
        None => format!("sqlite://{}", dir.join("r.db").display()),
    };
    Db::connect(&url).await.unwrap()
}

/// What kind of game a simulated one is.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
    Rated,
    FromPosition,
    Abandoned,
    Adapted,
    /// A language model chose the persona's moves.
    Uncalibrated,
}

/// A finished game stored as the match journal stores one.
async fn store_game(
    db: &Db,
    player: (PlayerId, bool),
    persona: (&str, u32),
    kind: Kind,
    result: &str,
    ended: chrono::DateTime<Utc>,
) {
    let (player, user_white) = player;
    let id = MatchId::new();
    let m = NewMatch {
        id,
        player_id: player,
        persona_id: persona.0.into(),
        user_color: if user_white { "white" } else { "black" },
        start_fen: if kind == Kind::FromPosition { SET_FEN } else { START_FEN }.into(),
        emotion: "calm".into(),
        utc_offset_minutes: None,
        persona_elo: if kind == Kind::Adapted {
            persona.1 + 150
        } else {
            persona.1
        },
        adapted: kind == Kind::Adapted,
        calibrated: kind != Kind::Uncalibrated,
    };
    db.insert_match(&m).await.unwrap();
    let (result, termination) = match kind {
        Kind::Abandoned => ("*", "abandoned"),
        _ => (result, "checkmate"),
    };
    sqlx::query("UPDATE matches SET status = 'finished', result = $1, termination = $2, ended_at = $3 WHERE id = $4")
        .bind(result)
        .bind(termination)
        .bind(kibitz::store::ts(ended))
        .bind(id.to_string())
        .execute(db.pool())
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rebuild_equals_the_live_updates_over_hundreds_of_games() {
    let dir = tempfile::tempdir().unwrap();
    let db = database(dir.path()).await;
    let mut rng = rand::rngs::StdRng::seed_from_u64(35);
    let players: Vec<PlayerId> = {
        let mut ids = Vec::new();
        for n in 0..4 {
            ids.push(db.create_player(&format!("P{n}"), &format!("h{n}")).await.unwrap().id);
        }
        ids
    };
    let strengths = [1100.0, 1450.0, 1650.0, 1950.0];
    let start = Utc.with_ymd_and_hms(2026, 6, 1, 18, 0, 0).unwrap();
    let (mut rated, mut unrated, mut late) = (0, 0, 0);
    let mut last_player = 0;
    for n in 0..320 {
        let p = if n % 17 == 16 {
            last_player
        } else {
            rng.gen_range(0..players.len())
        };
        last_player = p;
        let persona = PERSONAS[rng.gen_range(0..3)];
        let kind = match n % 23 {
            3 => Kind::FromPosition,
            9 => Kind::Abandoned,
            15 => Kind::Adapted,
            20 => Kind::Uncalibrated,
            _ => Kind::Rated,
        };
        let expected = 1.0 / (1.0 + 10f64.powf((f64::from(persona.1) - strengths[p]) / 400.0));
        let roll: f64 = rng.r#gen();
        let user_white = n % 2 == 0;
        let white_won = (roll < expected) == user_white;
        let result = if (roll - expected).abs() < 0.05 {
            "1/2-1/2"
        } else if white_won {
            "1-0"
        } else {
            "0-1"
        };
        // Every 17th game ends before the one stored ahead of it (a game that
        // ended earlier committed later): the history's tail is made anew.
        let minutes = n * 700 + if n % 17 == 16 { -1000 } else { 0 };
        let ended = start + Duration::minutes(minutes);
        store_game(&db, (players[p], user_white), persona, kind, result, ended).await;
        let before = db.rating_history(players[p]).await.unwrap();
        let history = ledger::update(&db, players[p], &card_elo).await.unwrap();
        if before.last().is_some_and(|e| e.played_at > ended) && kind == Kind::Rated {
            late += 1;
            assert!(history.iter().any(|e| e.played_at == ended), "the late game is in");
        }
        if kind == Kind::Rated { rated += 1 } else { unrated += 1 }
    }
    assert!(late >= 8, "late games made their tails anew: {late}");
    let mut live = Vec::new();
    for p in &players {
        live.push(db.rating_history(*p).await.unwrap());
    }
    assert_eq!(
        live.iter().map(Vec::len).sum::<usize>(),
        rated,
        "only the {rated} rated games, not the {unrated} others"
    );
    for history in &live {
        let order: Vec<_> = history.iter().map(|e| (e.played_at, e.match_id)).collect();
        assert!(order.windows(2).all(|w| w[0] <= w[1]), "in the order played");
    }

    let mut seen = Vec::new();
    let rebuilt = ledger::rebuild(&db, &card_elo, &mut |done, of| seen.push((done, of)))
        .await
        .unwrap();
    assert_eq!(
        (rebuilt.players, rebuilt.rated_games, rebuilt.rewritten),
        (4, rated, 0),
        "{rebuilt:?}"
    );
    assert_eq!(seen.last(), Some(&(4, 4)), "progress is told");
    for (p, history) in players.iter().zip(&live) {
        assert_eq!(
            &db.rating_history(*p).await.unwrap(),
            history,
            "bit for bit the same figures"
        );
    }

    // A history damaged by hand is found and made right.
    sqlx::query("UPDATE rating_history SET rating = rating + 1 WHERE player_id = $1")
        .bind(players[0].to_string())
        .execute(db.pool())
        .await
        .unwrap();
    let again = ledger::rebuild(&db, &card_elo, &mut |_, _| {}).await.unwrap();
    assert_eq!(again.rewritten, 1);
    assert_eq!(db.rating_history(players[0]).await.unwrap(), live[0]);

    // The strongest simulated player ends highest, the weakest lowest.
    let finals: Vec<f64> = live.iter().map(|h| rating::current(h).rating).collect();
    assert!(
        finals[3] > finals[2] && finals[2] > finals[1] && finals[1] > finals[0],
        "{finals:?}"
    );
}

fn event<'a>(out: &'a Value, kind: &str) -> Option<&'a Value> {
    out["events"].as_array()?.iter().find(|e| e["type"] == kind)
}

fn persona_says(out: &Value) -> String {
    let said = out["events"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "message");
    said.map(|e| e["data"]["content"].as_str().unwrap_or_default().to_string())
        .collect::<Vec<_>>()
        .join(" | ")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_player_sees_their_rating_and_only_rated_games_count() {
    let server = Server::start().await;
    let ann = server.new_player("Ann").await;
    let path = format!("/api/players/{ann}/rating");
    let (status, fresh) = server.get_as(&path, &server.token(&ann)).await;
    assert_eq!(status, 200, "{fresh}");
    assert_eq!(
        (fresh["rating"].as_f64(), fresh["rated_games"].as_u64()),
        (Some(1500.0), Some(0))
    );
    let fair: Vec<&str> = fresh["pairings"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["fair"] == true)
        .map(|p| p["persona_id"].as_str().unwrap())
        .collect();
    assert_eq!(fair, ["margot"], "a newcomer's fair game is the 1,500 persona: {fresh}");

    // A rated game: resigned at once against Margot.
    let (m, _) = server.new_match(&ann, "margot", "white").await;
    let (status, out) = server.post(&format!("/api/matches/{m}/resign"), json!({})).await;
    assert_eq!(status, 200, "{out}");
    let told = event(&out, "rating").expect("a rating event")["data"].clone();
    assert_eq!(told["rated"], true, "{told}");
    assert!(
        told["change"].as_f64().unwrap() < 0.0 && told["rated_games"] == 1,
        "{told}"
    );
    assert!(
        persona_says(&out).contains("That makes your rating"),
        "{}",
        persona_says(&out)
    );
    let (_, after) = server.get_as(&path, &server.token(&ann)).await;
    assert_eq!(after["history"].as_array().unwrap().len(), 1, "{after}");
    assert!((after["rating"].as_f64().unwrap() - told["rating"].as_f64().unwrap()).abs() < 0.1);
    let (_, reflection) = server.get(&format!("/api/matches/{m}/reflection")).await;
    assert!(
        reflection["summary"]
            .as_str()
            .unwrap()
            .contains("Ann's rating went from 1,500 to"),
        "{reflection}"
    );

    // From a set position: not rated, and it says why.
    let body = json!({ "player_id": ann, "persona_id": "pip", "color": "white", "fen": SET_FEN });
    let (_, out) = server.post("/api/matches", body).await;
    let m = out["state"]["id"].as_str().unwrap().to_string();
    let (_, out) = server.post(&format!("/api/matches/{m}/resign"), json!({})).await;
    let told = &event(&out, "rating").unwrap()["data"];
    assert_eq!(
        (told["rated"].as_bool(), told["why"].as_str()),
        (Some(false), Some("the game began from a set position"))
    );

    // Adaptive: Pip (1,200) plays within 1,000..=1,400 at Ann's rating, says so, and it is not rated.
    let body = json!({ "player_id": ann, "persona_id": "pip", "color": "black", "adaptive": true });
    let (status, out) = server.post("/api/matches", body).await;
    assert_eq!(status, 201, "{out}");
    let greeting = persona_says(&out);
    let ann_now = after["rating"].as_f64().unwrap();
    let plays_at = ann_now.round().clamp(1000.0, 1400.0);
    assert!(
        greeting.contains(&format!("Tonight I play at about {}", rating::figure(plays_at))),
        "{greeting}"
    );
    assert!(greeting.contains("won't count for your rating"), "{greeting}");
    let m = out["state"]["id"].as_str().unwrap().to_string();
    let (_, out) = server.post(&format!("/api/matches/{m}/resign"), json!({})).await;
    assert_eq!(event(&out, "rating").unwrap()["data"]["rated"], false);
    let (_, matches) = server
        .get_as(&format!("/api/players/{ann}/matches"), &server.token(&ann))
        .await;
    let adapted = matches
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["id"] == m.as_str())
        .unwrap();
    assert_eq!(
        (adapted["adapted"].as_bool(), adapted["persona_elo"].as_f64()),
        (Some(true), Some(plays_at))
    );
    let (_, end) = server.get_as(&path, &server.token(&ann)).await;
    assert_eq!(
        end["rated_games"], 1,
        "neither the set position nor the adapted game counted: {end}"
    );

    // The CLI shows the same figure, and a rebuild finds nothing to change.
    let (ok, out, err) = server.run_cli(&["ratings", "show", "--player", "Ann"]);
    assert!(ok, "{err}");
    assert!(
        out.contains(&format!("Ann: rating {} ± ", rating::figure(ann_now))),
        "{out}"
    );
    let (ok, out, err) = server.run_cli(&["ratings", "rebuild"]);
    assert!(ok, "{err}");
    assert!(out.contains("1 rated games; 0 histories rewritten"), "{out}");

    // Nobody else's rating.
    let bob = server.new_player("Bob").await;
    let (status, _) = server.get_as(&path, &server.token(&bob)).await;
    assert_eq!(status, 404);
}
