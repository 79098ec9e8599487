//! The Stockfish actor against the real Debian binary: legal moves, Elo
//! clamped to the engine's range, a restart when the process dies, a pool
//! serving searches side by side, and style among the MultiPV lines.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use kibitz::chess::Game;
use kibitz::chess::engine::{Engine, Priority, SearchBudget, SearchRequest, StockfishEngine, Style};

const STOCKFISH: &str = "/usr/games/stockfish";

/// The tests that kill this process's Stockfish children (`pkill -P`) would
/// kill every running test's engines: they run alone, the others side by side.
static CHILDREN: tokio::sync::RwLock<()> = tokio::sync::RwLock::const_new(());

fn request(fen: &str, elo: u32) -> SearchRequest {
    SearchRequest {
        fen: fen.into(),
        elo,
        style: Style::Positional,
        budget: SearchBudget::Millis(100),
    }
}

fn is_legal(fen: &str, uci: &str) -> bool {
    Game::new(Some(fen)).unwrap().parse(uci).is_ok()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stockfish_plays_survives_being_killed_and_clamps_elo() {
    let _alone = CHILDREN.write().await;
    assert!(
        Path::new(STOCKFISH).exists(),
        "stockfish missing: `make test` installs it (scripts/setup-system.sh)"
    );
    let engine = StockfishEngine::start(Path::new(STOCKFISH), 1, Priority::Live)
        .await
        .unwrap();
    assert!(engine.name().starts_with("Stockfish"), "{}", engine.name());

    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    // Far below the engine's minimum UCI_Elo: clamped, not refused.
    let mv = engine.choose_move(&request(start, 100)).await.unwrap().uci;
    assert!(is_legal(start, &mv), "{mv}");

    let mate_in_one = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1";
    assert_eq!(
        engine.choose_move(&request(mate_in_one, 3000)).await.unwrap().uci,
        "d1d8"
    );

    // Kill our Stockfish child; the actor starts a new one and answers anyway.
    let me = std::process::id().to_string();
    let killed = Command::new("pkill")
        .args(["-9", "-P", &me, "stockfish"])
        .status()
        .unwrap();
    assert!(killed.success(), "there was a stockfish child to kill");
    let after = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    let mv = engine.choose_move(&request(after, 1500)).await.unwrap().uci;
    assert!(is_legal(after, &mv), "{mv}");

    // A position with no legal move is an error, not a hang.
    let mated = "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3";
    assert!(engine.choose_move(&request(mated, 1500)).await.is_err());
}

/// A node budget searches as far as its nodes go, whatever the clock says,
/// and mixes with time budgets and evaluations on one process (each request
/// sends only the options that changed, so a stale one would show here).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_node_budget_plays_and_mixes_with_time_budgets() {
    let _side_by_side = CHILDREN.read().await;
    let engine = StockfishEngine::start(Path::new(STOCKFISH), 1, Priority::Live)
        .await
        .unwrap();
    let by_nodes = |fen: &str, elo, nodes| SearchRequest {
        budget: SearchBudget::Nodes { nodes, within_ms: None },
        ..request(fen, elo)
    };
    let mate_in_one = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1";
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    for round in 0..2 {
        let chosen = engine.choose_move(&by_nodes(mate_in_one, 3000, 5_000)).await.unwrap();
        assert_eq!(chosen.uci, "d1d8", "round {round}");
        let weak = engine.choose_move(&by_nodes(start, 800, 300)).await.unwrap().uci;
        assert!(is_legal(start, &weak), "{weak}");
        let timed = engine.choose_move(&request(start, 1500)).await.unwrap().uci;
        assert!(is_legal(start, &timed), "{timed}");
        // Full strength for the odds, then limited again next round.
        let score = engine.evaluate(mate_in_one, 5_000).await.unwrap();
        assert_eq!(score, kibitz::chess::engine::Score::Mate(1));
    }
    // A node budget with a time cap is booked: the nodes reached, or the
    // clock first. 20,000 nodes fit in 10 s; 5M do not fit in 30 ms.
    assert_eq!(engine.searches().searched, 0, "no search had a time cap yet");
    let capped = |nodes, ms| SearchRequest {
        budget: SearchBudget::Nodes {
            nodes,
            within_ms: Some(ms),
        },
        ..request(start, 1500)
    };
    engine.choose_move(&capped(20_000, 10_000)).await.unwrap();
    let books = engine.searches();
    assert_eq!((books.searched, books.stopped_short), (1, 0), "{books:?}");
    assert!(books.mean_nodes >= 18_000, "{books:?}");
    engine.choose_move(&capped(5_000_000, 30)).await.unwrap();
    let books = engine.searches();
    assert_eq!((books.searched, books.stopped_short), (2, 1), "{books:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn evaluation_scores_the_side_to_move_and_sees_mates() {
    let _side_by_side = CHILDREN.read().await;
    use kibitz::chess::engine::{BuiltinEngine, Score};
    use kibitz::chess::odds::win_pct;
    let engine = StockfishEngine::start(Path::new(STOCKFISH), 1, Priority::Live)
        .await
        .unwrap();
    // White is a queen up; Black to move sees it from Black's side.
    let queen_up_black_to_move = "rnb1kbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3";
    let score = engine.evaluate(queen_up_black_to_move, 20_000).await.unwrap();
    assert!(win_pct(&score) < 10.0, "{score:?}");
    let mate_in_one = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1";
    assert_eq!(engine.evaluate(mate_in_one, 20_000).await.unwrap(), Score::Mate(1));
    // The engine's full strength comes back after a limited search, and vice versa.
    let mv = engine.choose_move(&request(mate_in_one, 1400)).await.unwrap().uci;
    assert!(is_legal(mate_in_one, &mv), "{mv}");
    assert_eq!(engine.evaluate(mate_in_one, 20_000).await.unwrap(), Score::Mate(1));
    // The fallback engine agrees on the obvious.
    let builtin = BuiltinEngine.evaluate(queen_up_black_to_move, 0).await.unwrap();
    assert!(win_pct(&builtin) < 10.0, "{builtin:?}");
    assert_eq!(BuiltinEngine.evaluate(mate_in_one, 0).await.unwrap(), Score::Mate(1));
}

/// The persona's move comes scored by the search that chose it, as an
/// evaluation of the position after it would score it: the move's odds need
/// no second search.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_chosen_move_carries_the_score_after_it() {
    let _side_by_side = CHILDREN.read().await;
    use kibitz::chess::engine::Score;
    use kibitz::chess::odds::win_pct;
    let engine = StockfishEngine::start(Path::new(STOCKFISH), 1, Priority::Live)
        .await
        .unwrap();
    let mate_in_one = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1";
    let chosen = engine.choose_move(&request(mate_in_one, 3000)).await.unwrap();
    assert_eq!(
        chosen.score_after,
        Some(Score::Mate(0)),
        "Black is mated after {}",
        chosen.uci
    );
    // Black a queen down, at several strengths: after Black's move White, to
    // move, is winning, whichever line the strength limit picked.
    let queen_down = "rnb1kbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3";
    for elo in [1350, 1350, 2000, 3000] {
        let c = engine.choose_move(&request(queen_down, elo)).await.unwrap();
        let score = c.score_after.unwrap_or_else(|| panic!("{} came unscored", c.uci));
        let mut game = Game::new(Some(queen_down)).unwrap();
        game.play(game.parse(&c.uci).unwrap());
        let evaluated = engine.evaluate(&game.fen(), 20_000).await.unwrap();
        assert!(win_pct(&score) > 80.0, "{}: {score:?}", c.uci);
        assert!(win_pct(&evaluated) > 80.0, "{}: evaluated {evaluated:?}", c.uci);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pool_serves_matches_side_by_side_and_outlives_its_processes() {
    let _alone = CHILDREN.write().await;
    let engine = StockfishEngine::start(Path::new(STOCKFISH), 2, Priority::Live)
        .await
        .unwrap();
    let me = std::process::id().to_string();
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let (slow, fast) = (request(start, 2000), request(start, 2000));
    let begun = std::time::Instant::now();
    let (a, b) = tokio::join!(engine.choose_move(&slow), engine.choose_move(&fast));
    assert!(is_legal(start, &a.unwrap().uci) && is_legal(start, &b.unwrap().uci));
    // Two 100 ms searches on two workers overlap; one worker would need 200 ms.
    let took = begun.elapsed();
    println!("two searches on a pool of two: {took:?}");
    // Every process killed at once: each worker restarts its own.
    Command::new("pkill")
        .args(["-9", "-P", &me, "stockfish"])
        .status()
        .unwrap();
    let (a, b) = tokio::join!(engine.choose_move(&slow), engine.choose_move(&fast));
    assert!(is_legal(start, &a.unwrap().uci) && is_legal(start, &b.unwrap().uci));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_evaluation_nobody_waits_for_any_more_is_not_searched() {
    let _side_by_side = CHILDREN.read().await;
    let engine = StockfishEngine::start(Path::new(STOCKFISH), 1, Priority::Live)
        .await
        .unwrap();
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    // The one worker is busy with a 100 ms search; an evaluation queued
    // behind it gives up after 10 ms, as a move's odds do past their budget.
    let slow = request(start, 2000);
    let search = engine.choose_move(&slow);
    let impatient = async {
        tokio::time::sleep(Duration::from_millis(5)).await;
        tokio::time::timeout(Duration::from_millis(10), engine.evaluate(start, 1_000_000)).await
    };
    let (mv, late) = tokio::join!(search, impatient);
    assert!(is_legal(start, &mv.unwrap().uci));
    assert!(late.is_err(), "the evaluation was still queued");
    // The next job finds the abandoned one gone, not a million nodes to wait for.
    let score = engine.evaluate(start, 1_000).await;
    assert!(score.is_ok(), "{score:?}");
    assert_eq!(engine.abandoned(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_aggressive_persona_takes_more_than_a_defensive_one() {
    let _side_by_side = CHILDREN.read().await;
    let engine = StockfishEngine::start(Path::new(STOCKFISH), 1, Priority::Live)
        .await
        .unwrap();
    // Openings where Stockfish's best move is quiet but a capture is within
    // its margin (Queen's Gambit Accepted, Sicilian ...cxd4, Ruy Lopez Bxc6).
    let positions = [
        "rnbqkbnr/ppp1pppp/8/3p4/2PP4/8/PP2PPPP/RNBQKBNR b KQkq c3 0 2",
        "rnbqkbnr/pp2pppp/3p4/2p5/3PP3/5N2/PPP2PPP/RNBQKB1R b KQkq d3 0 3",
        "r1bqkbnr/1ppp1ppp/p1n5/1B2p3/4P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 0 4",
    ];
    let mut captures = [0usize; 2];
    for (i, style) in [Style::Aggressive, Style::Defensive].into_iter().enumerate() {
        for fen in positions {
            for _ in 0..6 {
                let req = SearchRequest {
                    style,
                    ..request(fen, 2400)
                };
                let mv = engine.choose_move(&req).await.unwrap().uci;
                let game = Game::new(Some(fen)).unwrap();
                captures[i] += usize::from(game.parse(&mv).unwrap().is_capture());
            }
        }
    }
    println!(
        "captures of 18 moves: aggressive {}, defensive {}",
        captures[0], captures[1]
    );
    assert!(captures[0] > captures[1], "{captures:?}");
}

/// A review's better move: the best move at full strength and its score,
/// from Stockfish and from the built-in engine that stands in for it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_best_line_is_the_mate_and_says_so() {
    let _beside = CHILDREN.read().await;
    let mate_in_one = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1";
    let stockfish = StockfishEngine::start(Path::new(STOCKFISH), 1, Priority::Live)
        .await
        .unwrap();
    let builtin = kibitz::chess::engine::BuiltinEngine;
    for engine in [&stockfish as &dyn Engine, &builtin] {
        let best = engine.best_line(mate_in_one, 20_000).await.unwrap();
        assert_eq!(best.uci, "d1d8", "{}", engine.name());
        assert_eq!(best.score, kibitz::chess::engine::Score::Mate(1), "{}", engine.name());
    }
    // A quiet position: a legal move and a score in centipawns.
    let start = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    let best = stockfish.best_line(start, 20_000).await.unwrap();
    assert!(is_legal(start, &best.uci), "{best:?}");
    assert!(
        matches!(best.score, kibitz::chess::engine::Score::Cp(cp) if cp.abs() < 100),
        "{best:?}"
    );
    // Checkmated: no move to find.
    let mated = "3R2k1/5ppp/8/8/8/8/5PPP/6K1 b - - 1 1";
    assert!(stockfish.best_line(mated, 1_000).await.is_err());
}

/// The niceness and scheduling policy of each of this process's Stockfish
/// children (fields 19 and 41 of /proc/<pid>/stat; 5 is SCHED_IDLE).
fn children_niceness() -> Vec<(i64, i64)> {
    let me = std::process::id().to_string();
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        let Some((head, rest)) = stat.rsplit_once(')') else {
            continue;
        };
        let fields: Vec<&str> = rest.split_whitespace().collect();
        // rest: state ppid ... ; nice is the 19th field of the line, the
        // 17th after the command; the policy the 41st, the 39th after it.
        if head.contains("(stockfish") && fields.get(1) == Some(&me.as_str()) {
            found.push((fields[16].parse().unwrap(), fields[38].parse().unwrap()));
        }
    }
    found
}

/// The deeper evaluation's engine runs at the lowest priority, so the live
/// searches of every match come first; its answers are the same.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spare_engine_searches_at_the_lowest_priority() {
    let _alone = CHILDREN.write().await;
    let before = children_niceness();
    assert!(
        before.iter().all(|n| *n == (0, 0)),
        "live engines keep their priority: {before:?}"
    );
    let spare = StockfishEngine::start(Path::new(STOCKFISH), 1, Priority::Spare)
        .await
        .unwrap();
    let fen = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1";
    let score = spare.evaluate(fen, 20_000).await.unwrap();
    assert!(
        matches!(score, kibitz::chess::engine::Score::Mate(n) if n > 0),
        "{score:?}"
    );
    let after = children_niceness();
    assert_eq!(
        after.iter().filter(|n| **n == (19, libc::SCHED_IDLE as i64)).count(),
        1,
        "nice 19 and SCHED_IDLE: {after:?}"
    );
}
