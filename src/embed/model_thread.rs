//! The embedding model's own thread. Callers queue their texts; the thread
//! runs them in arrival order, one text per model run. The model quantizes
//! its activations at each run with one scale for the whole input, so a
//! text run beside others would get a vector that depends on them (cosine
//! down to 0.984 measured); alone, a text always gets the same vector. With
//! int8 arithmetic a text alone costs little more than in a batch (3.9 vs
//! 2.7 ms for 20 tokens; the float model took 7.8 vs 4.6).

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::{Duration, Instant};

use fastembed::TextEmbedding;
use tokio::sync::oneshot;

/// The model or its thread failed; `embed` names it an `EmbedError`.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ModelFailed(pub String);

type Vectors = Result<Vec<Vec<f32>>, ModelFailed>;

/// What the thread has done, read by the embedder's stats.
#[derive(Default)]
pub(super) struct RunCounters {
    pub busy_us: AtomicU64,
    pub runs: AtomicU64,
    /// Texts sent and not yet taken into a run: how far behind the model is.
    pub queued: AtomicUsize,
    /// How busy the model has been lately (see `RecentLoad`).
    pub load: Mutex<RecentLoad>,
}

/// The model's run time, decayed with a one-second time constant: its
/// share of the last second or so of one core, 0 idle, 1 never idle. A
/// backlog only shows a model that cannot keep up; this also shows one that
/// keeps up by taking a core the rest of the service needs.
#[derive(Debug)]
pub(super) struct RecentLoad {
    busy_secs: f64,
    at: Instant,
}

const LOAD_TIME_CONSTANT_SECS: f64 = 1.0;

impl Default for RecentLoad {
    fn default() -> Self {
        RecentLoad {
            busy_secs: 0.0,
            at: Instant::now(),
        }
    }
}

impl RecentLoad {
    fn decay_to(&mut self, now: Instant) {
        let elapsed = now.saturating_duration_since(self.at).as_secs_f64();
        self.busy_secs *= (-elapsed / LOAD_TIME_CONSTANT_SECS).exp();
        self.at = self.at.max(now);
    }

    pub(super) fn add(&mut self, now: Instant, busy: Duration) {
        self.decay_to(now);
        self.busy_secs += busy.as_secs_f64();
    }

    pub(super) fn share(&mut self, now: Instant) -> f64 {
        self.decay_to(now);
        // A run is added when it ends: one longer than the time constant
        // would read as more than a whole core.
        (self.busy_secs / LOAD_TIME_CONSTANT_SECS).min(1.0)
    }
}

struct Request {
    texts: Vec<String>,
    reply: oneshot::Sender<Vectors>,
}

/// The sending side; the thread ends when every clone is gone.
#[derive(Clone)]
pub(super) struct ModelThread {
    queue: mpsc::Sender<Request>,
    counters: Arc<RunCounters>,
}

fn stopped() -> ModelFailed {
    ModelFailed("the embedding thread stopped".into())
}

impl ModelThread {
    /// Moves `model` to a thread of its own, which adds up its run time
    /// and counts its runs.
    pub(super) fn start(model: TextEmbedding, counters: Arc<RunCounters>) -> Result<ModelThread, ModelFailed> {
        let (queue, requests) = mpsc::channel();
        let served = Arc::clone(&counters);
        std::thread::Builder::new()
            .name("embedder".into())
            .spawn(move || {
                yield_to_the_service();
                serve(model, &requests, &served)
            })
            .map_err(|e| ModelFailed(format!("cannot start the embedding thread: {e}")))?;
        Ok(ModelThread { queue, counters })
    }

    /// The vectors of `texts`, in order, each from a run of its own.
    pub(super) async fn embed(&self, texts: Vec<String>) -> Vectors {
        if texts.is_empty() {
            return Ok(Vec::new());
        }
        let (reply, answer) = oneshot::channel();
        let n = texts.len();
        self.counters.queued.fetch_add(n, Ordering::Relaxed);
        if self.queue.send(Request { texts, reply }).is_err() {
            self.counters.queued.fetch_sub(n, Ordering::Relaxed);
            return Err(stopped());
        }
        answer.await.map_err(|_| stopped())?
    }
}

/// The model's niceness. Its runs are background work next to a move
/// (memory saves at a game's end, consolidation; a chat's query is shed
/// when the model is busy), so when the cores are short they yield to the
/// tokio workers, the SQLite thread and Stockfish, which every move waits
/// for. Nice 10 weighs a thread about a tenth of a normal one. At 1,000
/// live matches with a quarter of the CPU taken by another process: p99
/// 25.8 and 22.5 ms against 27.8 and 27.6 at nice 0.
const MODEL_NICENESS: libc::c_int = 10;

/// Lowers this thread's priority (and that of the ONNX Runtime threads it
/// starts, which inherit it); a failure only costs the priority.
fn yield_to_the_service() {
    // SAFETY: setpriority takes plain integers and touches no memory of
    // ours; on Linux, `who` 0 with PRIO_PROCESS is the calling thread.
    let lowered = unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, MODEL_NICENESS) };
    if lowered != 0 {
        let e = std::io::Error::last_os_error();
        tracing::warn!("the embedding thread keeps its priority: {e}");
    }
}

fn serve(mut model: TextEmbedding, requests: &mpsc::Receiver<Request>, counters: &RunCounters) {
    while let Ok(Request { texts, reply }) = requests.recv() {
        let _ = reply.send(run_each(&mut model, &texts, counters));
    }
}

/// Each text in its own run; the first failure fails them all (the rest are not run).
fn run_each(model: &mut TextEmbedding, texts: &[String], counters: &RunCounters) -> Vectors {
    let mut vectors = Vec::with_capacity(texts.len());
    for (i, text) in texts.iter().enumerate() {
        counters.queued.fetch_sub(1, Ordering::Relaxed);
        let started = Instant::now();
        let vector = run(model, text);
        counters.count(started.elapsed());
        match vector {
            Ok(v) => vectors.push(v),
            Err(e) => {
                counters.queued.fetch_sub(texts.len() - i - 1, Ordering::Relaxed);
                return Err(e);
            }
        }
    }
    Ok(vectors)
}

impl RunCounters {
    fn count(&self, elapsed: Duration) {
        if let Ok(mut load) = self.load.lock() {
            load.add(Instant::now(), elapsed);
        }
        let spent = u64::try_from(elapsed.as_micros()).unwrap_or(u64::MAX);
        self.busy_us.fetch_add(spent, Ordering::Relaxed);
        self.runs.fetch_add(1, Ordering::Relaxed);
    }
}

fn run(model: &mut TextEmbedding, text: &str) -> Result<Vec<f32>, ModelFailed> {
    model
        .embed([text], None)
        .map_err(|e| ModelFailed(e.to_string()))?
        .pop()
        .ok_or_else(|| ModelFailed("no vector for the text".into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_load_is_the_models_share_of_the_last_second() {
        let start = Instant::now();
        let mut load = RecentLoad {
            busy_secs: 0.0,
            at: start,
        };
        // Busy half of every 10 ms for five seconds: converges to one half.
        for i in 1..=500 {
            load.add(start + Duration::from_millis(10 * i), Duration::from_millis(5));
        }
        let busy = load.share(start + Duration::from_secs(5));
        assert!((busy - 0.5).abs() < 0.02, "{busy}");
        // Idle for three seconds: e^-3 of that is left.
        let idle = load.share(start + Duration::from_secs(8));
        assert!((idle - busy * (-3.0f64).exp()).abs() < 1e-6, "{idle}");
    }
}
