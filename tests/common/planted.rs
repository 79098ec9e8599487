//! A game with a planted blunder, for the tests of puzzles and reviews.

use super::{Server, eventually};

/// White mates with Qxd8#; Qd4 instead hangs the queen to the rook.
pub const MATE_OR_BLUNDER: &str = "3r2k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1";

/// A game with a planted blunder, over and reviewed: its id and its puzzle's.
pub async fn planted(server: &Server, pat: &str) -> (String, String) {
    let m = server.new_match_at(pat, "margot", "white", MATE_OR_BLUNDER).await;
    server.play_move(&m, "Qd4").await;
    server.resign(&m).await;
    // Kept after the game, off the reply.
    let list = format!("/api/players/{pat}/puzzles");
    assert!(eventually(30, || async { server.get(&list).await.1[0]["id"].is_string() }).await);
    let id = server.get(&list).await.1[0]["id"].as_str().unwrap().to_string();
    (m, id)
}
