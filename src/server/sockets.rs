//! Open WebSockets, counted per player and per match: each socket holds a
//! slot for its life, so one client cannot pin a node's memory and tasks
//! with thousands of idle connections.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use axum::http::StatusCode;

use super::error::ApiError;
use crate::config::LimitsConfig;
use crate::ids::{MatchId, PlayerId};

/// Largest client message, and frame, we read; commands are tiny.
pub(super) const MAX_FRAME: usize = 16 * 1024;
/// Pings a peer may leave unanswered before it is taken for gone.
pub(super) const MISSED_PONGS: u32 = 2;

#[derive(Default, Debug)]
pub struct Sockets {
    open: Mutex<HashMap<String, u32>>,
}

/// One socket's place in the counts, given back when it is dropped.
#[derive(Debug)]
pub struct Slot {
    sockets: Arc<Sockets>,
    keys: Vec<String>,
}

impl Sockets {
    /// A slot for a socket on `m` by `player` (None: the admin, counted
    /// per match only), or 429 `too_many_sockets`.
    pub fn open(
        self: &Arc<Self>,
        player: Option<PlayerId>,
        m: MatchId,
        limits: &LimitsConfig,
    ) -> Result<Slot, ApiError> {
        let mut wanted = vec![(format!("match:{m}"), limits.sockets_per_match, "this match")];
        if let Some(p) = player {
            wanted.push((format!("player:{p}"), limits.sockets_per_player, "one player"));
        }
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        for (key, cap, whom) in &wanted {
            if *cap > 0 && open.get(key).copied().unwrap_or(0) >= *cap {
                let message = format!("{cap} connections are open for {whom}, the most allowed: close one first");
                return Err(ApiError::new(StatusCode::TOO_MANY_REQUESTS, "too_many_sockets", message).retry_after(5));
            }
        }
        for (key, ..) in &wanted {
            *open.entry(key.clone()).or_default() += 1;
        }
        Ok(Slot {
            sockets: self.clone(),
            keys: wanted.into_iter().map(|(k, ..)| k).collect(),
        })
    }

    /// Sockets open now.
    pub fn count(&self) -> u32 {
        let open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        open.iter()
            .filter(|(k, _)| k.starts_with("match:"))
            .map(|(_, n)| n)
            .sum()
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.sockets.open.lock().unwrap_or_else(|e| e.into_inner());
        for key in &self.keys {
            if let Some(n) = open.get_mut(key) {
                *n -= 1;
                if *n == 0 {
                    open.remove(key);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_counted_per_match_and_player_and_given_back() {
        let sockets = Arc::new(Sockets::default());
        let limits = LimitsConfig {
            sockets_per_match: 2,
            sockets_per_player: 3,
            ..LimitsConfig::default()
        };
        let (ann, m1, m2) = (PlayerId::new(), MatchId::new(), MatchId::new());
        let a = sockets.open(Some(ann), m1, &limits).unwrap();
        let _b = sockets.open(Some(ann), m1, &limits).unwrap();
        let refused = sockets.open(Some(ann), m1, &limits).unwrap_err();
        assert_eq!((refused.code, refused.retry_after), ("too_many_sockets", Some(5)));
        let _c = sockets.open(Some(ann), m2, &limits).unwrap();
        let refused = sockets.open(Some(ann), m2, &limits).unwrap_err();
        assert!(refused.message.contains("one player"), "{}", refused.message);
        drop(a);
        let _d = sockets
            .open(Some(ann), m2, &limits)
            .expect("a closed socket gives its slot back");
        assert_eq!(sockets.count(), 3);
    }
}
