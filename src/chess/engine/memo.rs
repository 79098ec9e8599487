//! Evaluations remembered: every game starts from the same position and
//! most openings pass through the same few hundred, so an engine's
//! full-strength verdict on a position (`evaluate`, `best_line`) is kept
//! and given again instead of searched again. Before, the first move of
//! every game evaluated the starting position anew: at 500 games opening
//! in the same seconds that was a core of Stockfish for ten seconds, and
//! the live searches queued behind it. The persona's own moves are never
//! remembered: they are chosen with chance and style, one search each.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;

use super::{BestLine, Chosen, Engine, EngineError, Score, SearchRequest};

/// Verdicts kept, newest last: about 1 MiB of FENs.
const CAPACITY: usize = 8192;

/// What one search said of a position at a node count.
#[derive(Clone)]
enum Verdict {
    Score(Score),
    Best(BestLine),
}

/// An engine whose evaluations are remembered, by position and node count.
pub struct Remembering<E> {
    inner: E,
    kept: Mutex<Kept>,
}

#[derive(Default)]
struct Kept {
    verdicts: HashMap<(String, u64, bool), Verdict>,
    order: VecDeque<(String, u64, bool)>,
    hits: u64,
}

impl Kept {
    fn put(&mut self, key: (String, u64, bool), verdict: Verdict) {
        if self.verdicts.insert(key.clone(), verdict).is_some() {
            return;
        }
        self.order.push_back(key);
        if self.order.len() > CAPACITY
            && let Some(oldest) = self.order.pop_front()
        {
            self.verdicts.remove(&oldest);
        }
    }
}

impl<E: Engine> Remembering<E> {
    pub fn new(inner: E) -> Self {
        Remembering {
            inner,
            kept: Mutex::new(Kept::default()),
        }
    }

    /// Evaluations answered from memory so far.
    pub fn hits(&self) -> u64 {
        self.lock().hits
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Kept> {
        // Plain data: a panic elsewhere while holding it left nothing half-done.
        self.kept.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn recall(&self, key: &(String, u64, bool)) -> Option<Verdict> {
        let mut kept = self.lock();
        let found = kept.verdicts.get(key).cloned();
        kept.hits += u64::from(found.is_some());
        found
    }
}

#[async_trait]
impl<E: Engine> Engine for Remembering<E> {
    fn name(&self) -> String {
        self.inner.name()
    }

    async fn choose_move(&self, req: &SearchRequest) -> Result<Chosen, EngineError> {
        self.inner.choose_move(req).await
    }

    async fn evaluate(&self, fen: &str, nodes: u64) -> Result<Score, EngineError> {
        let key = (fen.to_string(), nodes, false);
        if let Some(Verdict::Score(score)) = self.recall(&key) {
            return Ok(score);
        }
        let score = self.inner.evaluate(fen, nodes).await?;
        self.lock().put(key, Verdict::Score(score.clone()));
        Ok(score)
    }

    async fn best_line(&self, fen: &str, nodes: u64) -> Result<BestLine, EngineError> {
        let key = (fen.to_string(), nodes, true);
        if let Some(Verdict::Best(line)) = self.recall(&key) {
            return Ok(line);
        }
        let line = self.inner.best_line(fen, nodes).await?;
        self.lock().put(key, Verdict::Best(line.clone()));
        Ok(line)
    }

    fn queue_wait(&self) -> Duration {
        self.inner.queue_wait()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};

    use super::*;

    /// Counts the searches that reach it.
    #[derive(Default)]
    struct Counting(AtomicU64);

    #[async_trait]
    impl Engine for Counting {
        fn name(&self) -> String {
            "counting".into()
        }
        async fn choose_move(&self, _: &SearchRequest) -> Result<Chosen, EngineError> {
            self.0.fetch_add(1, Ordering::Relaxed);
            Ok(Chosen::unscored("e2e4".into()))
        }
        async fn evaluate(&self, fen: &str, nodes: u64) -> Result<Score, EngineError> {
            self.0.fetch_add(1, Ordering::Relaxed);
            Ok(Score::Cp((fen.len() as u64 + nodes) as i32))
        }
        async fn best_line(&self, _: &str, _: u64) -> Result<BestLine, EngineError> {
            self.0.fetch_add(1, Ordering::Relaxed);
            Ok(BestLine {
                uci: "e2e4".into(),
                score: Score::Cp(30),
            })
        }
    }

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[tokio::test]
    async fn a_position_is_searched_once_per_node_count() {
        let engine = Remembering::new(Counting::default());
        let first = engine.evaluate(START, 20_000).await.unwrap();
        assert_eq!(engine.evaluate(START, 20_000).await.unwrap(), first);
        assert_eq!(engine.inner.0.load(Ordering::Relaxed), 1);
        assert_eq!(engine.hits(), 1);
        // Another budget is another verdict; a best line is not a score.
        engine.evaluate(START, 200_000).await.unwrap();
        engine.best_line(START, 20_000).await.unwrap();
        engine.best_line(START, 20_000).await.unwrap();
        assert_eq!(engine.inner.0.load(Ordering::Relaxed), 3);
    }

    #[tokio::test]
    async fn the_persona_s_moves_are_always_searched() {
        let engine = Remembering::new(Counting::default());
        let req = SearchRequest {
            fen: START.into(),
            elo: 1500,
            style: super::super::Style::Positional,
            budget: super::super::SearchBudget::Millis(10),
        };
        engine.choose_move(&req).await.unwrap();
        engine.choose_move(&req).await.unwrap();
        assert_eq!(engine.inner.0.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn the_oldest_verdict_goes_first() {
        let mut kept = Kept::default();
        for n in 0..=CAPACITY as u64 {
            kept.put((START.into(), n, false), Verdict::Score(Score::Cp(0)));
        }
        assert_eq!(kept.verdicts.len(), CAPACITY);
        assert!(!kept.verdicts.contains_key(&(START.to_string(), 0, false)));
        assert!(kept.verdicts.contains_key(&(START.to_string(), CAPACITY as u64, false)));
    }
}
