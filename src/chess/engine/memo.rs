//! Evaluations remembered: every game starts from the same position and
//! most openings pass through the same few hundred, so an engine's
//! full-strength verdict on a position (`evaluate`, `best_line`) is kept
//! and given again instead of searched again. Before, the first move of
//! every game evaluated the starting position anew: at 500 games opening
//! in the same seconds that was a core of Stockfish for ten seconds, and
//! the live searches queued behind it.
//!
//! A persona's own move is chosen with chance (its Elo's slips) and style,
//! so one search is one draw of its choice. In the opening, where a
//! thousand games meet the same positions, a persona's first `SAMPLES`
//! searches of a position are kept and later games draw one of them: the
//! same spread of moves as searching again, without the search (the
//! persona's moves in the first seconds of a thousand games were most of
//! the node's CPU). Past the opening every move is searched.

use std::collections::{HashMap, VecDeque};
use std::hash::Hash;
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;
use rand::seq::SliceRandom;

use super::{BestLine, Chosen, Engine, EngineError, Score, SearchBudget, SearchRequest, Style};

/// Positions kept, newest last: about 1 MiB of FENs each for verdicts and
/// for the persona's choices.
const CAPACITY: usize = 8192;
/// Searches of one opening position by one persona kept to draw from.
const SAMPLES: usize = 4;
/// The opening, as far as a persona's choices are kept: positions up to
/// this move number (the FEN's last field).
const OPENING_MOVES: u32 = 10;

/// What one search said of a position at a node count.
#[derive(Clone)]
enum Verdict {
    Score(Score),
    Best(BestLine),
}

/// A verdict's key: the position, the nodes, and whether a best line.
type VerdictKey = (String, u64, bool);
/// A persona's choice's key: the position and how the persona searches it.
type ChoiceKey = (String, u32, Style, SearchBudget);

/// An engine whose evaluations are remembered, by position and node count,
/// and whose persona moves in the opening are drawn from kept searches.
pub struct Remembering<E> {
    inner: E,
    kept: Mutex<Kept>,
}

#[derive(Default)]
struct Kept {
    verdicts: Fifo<VerdictKey, Verdict>,
    choices: Fifo<ChoiceKey, Vec<Chosen>>,
    hits: u64,
}

/// A map that forgets its oldest key past `CAPACITY`.
struct Fifo<K, V> {
    map: HashMap<K, V>,
    order: VecDeque<K>,
}

impl<K, V> Default for Fifo<K, V> {
    fn default() -> Self {
        Fifo {
            map: HashMap::new(),
            order: VecDeque::new(),
        }
    }
}

impl<K: Hash + Eq + Clone, V> Fifo<K, V> {
    fn insert(&mut self, key: K, value: V) {
        let mut value = Some(value);
        let slot = self.entry(key, || value.take().expect("taken once"));
        if let Some(newer) = value {
            *slot = newer;
        }
    }

    /// The value under `key`, made with `new` if absent (the oldest key
    /// forgotten if that makes one too many).
    fn entry(&mut self, key: K, new: impl FnOnce() -> V) -> &mut V {
        if !self.map.contains_key(&key) {
            self.order.push_back(key.clone());
            if self.order.len() > CAPACITY
                && let Some(oldest) = self.order.pop_front()
            {
                self.map.remove(&oldest);
            }
        }
        self.map.entry(key).or_insert_with(new)
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

    fn recall(&self, key: &VerdictKey) -> Option<Verdict> {
        let mut kept = self.lock();
        let found = kept.verdicts.map.get(key).cloned();
        kept.hits += u64::from(found.is_some());
        found
    }

    fn keep(&self, key: VerdictKey, verdict: Verdict) {
        self.lock().verdicts.insert(key, verdict);
    }

    /// One of the persona's kept choices in this opening position, once
    /// there are enough to draw from.
    fn drawn(&self, key: &ChoiceKey) -> Option<Chosen> {
        let mut kept = self.lock();
        let found = kept
            .choices
            .map
            .get(key)
            .filter(|samples| samples.len() >= SAMPLES)
            .and_then(|samples| samples.choose(&mut rand::thread_rng()).cloned());
        kept.hits += u64::from(found.is_some());
        found
    }

    fn keep_choice(&self, key: ChoiceKey, chosen: Chosen) {
        let mut kept = self.lock();
        let samples = kept.choices.entry(key, Vec::new);
        if samples.len() < SAMPLES {
            samples.push(chosen);
        }
    }
}

/// The key of a persona's move kept for drawing: only in the opening.
fn opening_choice(req: &SearchRequest) -> Option<ChoiceKey> {
    let move_number: u32 = req.fen.rsplit(' ').next()?.parse().ok()?;
    (move_number <= OPENING_MOVES).then(|| (req.fen.clone(), req.elo, req.style, req.budget))
}

#[async_trait]
impl<E: Engine> Engine for Remembering<E> {
    fn name(&self) -> String {
        self.inner.name()
    }

    async fn choose_move(&self, req: &SearchRequest) -> Result<Chosen, EngineError> {
        let Some(key) = opening_choice(req) else {
            return self.inner.choose_move(req).await;
        };
        if let Some(chosen) = self.drawn(&key) {
            return Ok(chosen);
        }
        let chosen = self.inner.choose_move(req).await?;
        self.keep_choice(key, chosen.clone());
        Ok(chosen)
    }

    async fn evaluate(&self, fen: &str, nodes: u64) -> Result<Score, EngineError> {
        let key = (fen.to_string(), nodes, false);
        if let Some(Verdict::Score(score)) = self.recall(&key) {
            return Ok(score);
        }
        let score = self.inner.evaluate(fen, nodes).await?;
        self.keep(key, Verdict::Score(score.clone()));
        Ok(score)
    }

    async fn best_line(&self, fen: &str, nodes: u64) -> Result<BestLine, EngineError> {
        let key = (fen.to_string(), nodes, true);
        if let Some(Verdict::Best(line)) = self.recall(&key) {
            return Ok(line);
        }
        let line = self.inner.best_line(fen, nodes).await?;
        self.keep(key, Verdict::Best(line.clone()));
        Ok(line)
    }

    fn known_score(&self, fen: &str, nodes: u64) -> Option<Score> {
        match self.recall(&(fen.to_string(), nodes, false))? {
            Verdict::Score(score) => Some(score),
            Verdict::Best(_) => None,
        }
    }

    fn queue_wait(&self) -> Duration {
        self.inner.queue_wait()
    }

    fn searches(&self) -> super::SearchTally {
        self.inner.searches()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicU64, Ordering};

    use super::*;

    const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

    #[tokio::test]
    async fn a_position_is_searched_once_per_node_count() {
        let engine = Remembering::new(Numbered::default());
        let first = engine.evaluate(START, 20_000).await.unwrap();
        assert_eq!(engine.evaluate(START, 20_000).await.unwrap(), first);
        assert_eq!(engine.inner.0.load(Ordering::Relaxed), 1);
        assert_eq!(engine.hits(), 1);
        // Known without a search; an unknown budget is not.
        assert_eq!(engine.known_score(START, 20_000), Some(first));
        assert_eq!(engine.known_score(START, 20_001), None);
        // Another budget is another verdict; a best line is not a score.
        engine.evaluate(START, 200_000).await.unwrap();
        engine.best_line(START, 20_000).await.unwrap();
        engine.best_line(START, 20_000).await.unwrap();
        assert_eq!(engine.inner.0.load(Ordering::Relaxed), 3);
    }

    /// Counts the searches that reach it, and answers each move search with
    /// a new move name, so draws can be told apart.
    #[derive(Default)]
    struct Numbered(AtomicU64);

    #[async_trait]
    impl Engine for Numbered {
        fn name(&self) -> String {
            "numbered".into()
        }
        async fn choose_move(&self, _: &SearchRequest) -> Result<Chosen, EngineError> {
            let n = self.0.fetch_add(1, Ordering::Relaxed);
            Ok(Chosen::unscored(format!("move{n}")))
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

    fn request(fen: &str, elo: u32) -> SearchRequest {
        SearchRequest {
            fen: fen.into(),
            elo,
            style: Style::Positional,
            budget: SearchBudget::Millis(10),
        }
    }

    #[tokio::test]
    async fn an_opening_position_is_searched_a_few_times_then_drawn_from() {
        let engine = Remembering::new(Numbered::default());
        let mut seen = std::collections::BTreeSet::new();
        for _ in 0..50 {
            seen.insert(engine.choose_move(&request(START, 1500)).await.unwrap().uci);
        }
        assert_eq!(engine.inner.0.load(Ordering::Relaxed), SAMPLES as u64);
        // Every kept search is drawn now and then, not only the first.
        assert_eq!(seen.len(), SAMPLES, "{seen:?}");
        // Another persona's strength searches for itself.
        engine.choose_move(&request(START, 1800)).await.unwrap();
        assert_eq!(engine.inner.0.load(Ordering::Relaxed), SAMPLES as u64 + 1);
    }

    #[tokio::test]
    async fn past_the_opening_every_move_is_searched() {
        let engine = Remembering::new(Numbered::default());
        let middlegame = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N2N2/PP2BPPP/R2QKB1R w KQ - 0 11";
        for _ in 0..10 {
            engine.choose_move(&request(middlegame, 1500)).await.unwrap();
        }
        assert_eq!(engine.inner.0.load(Ordering::Relaxed), 10);
    }

    #[test]
    fn the_oldest_position_goes_first() {
        let mut kept: Fifo<u64, u64> = Fifo::default();
        for n in 0..=CAPACITY as u64 {
            *kept.entry(n, || 0) += n;
        }
        *kept.entry(CAPACITY as u64, || 0) += 1;
        assert_eq!(kept.map.len(), CAPACITY);
        assert!(!kept.map.contains_key(&0));
        assert_eq!(kept.map[&(CAPACITY as u64)], CAPACITY as u64 + 1);
    }
}
