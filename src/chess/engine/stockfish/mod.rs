//! Stockfish as a pool of actors: each worker task owns one child process
//! (`process.rs`) and takes search jobs from a shared queue, one at a time.
//! The child is killed when dropped; if it dies mid-search the worker starts
//! a fresh one and tries the job once more.

mod process;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use tokio::sync::{Mutex, mpsc, oneshot};

use super::queue::QueueClock;
use super::uci::Score;
use super::{BestLine, Chosen, Engine, EngineError, Priority, SearchBooks, SearchBudget, SearchRequest, SearchTally};
use process::Process;

enum Work {
    Choose(SearchRequest),
    Evaluate { fen: String, nodes: u64 },
    Best { fen: String, nodes: u64 },
}

enum Answer {
    Move(Chosen),
    Score(Score),
    Best(BestLine),
}

struct Job {
    work: Work,
    reply: oneshot::Sender<Result<Answer, EngineError>>,
    queued_at: Instant,
}

pub struct StockfishEngine {
    jobs: mpsc::Sender<Job>,
    name: String,
    /// Jobs dropped unsearched because their asker had stopped waiting.
    abandoned: Arc<AtomicU64>,
    clock: Arc<QueueClock>,
    books: Arc<SearchBooks>,
}

impl StockfishEngine {
    /// Starts a pool of `workers` processes that take jobs from one queue, so
    /// a long search in one match does not hold up another match's move.
    pub async fn start(path: &Path, workers: usize, priority: Priority) -> Result<Self, EngineError> {
        let (jobs, rx) = mpsc::channel(64);
        let queue = Arc::new(Mutex::new(rx));
        let mut name = String::new();
        let abandoned = Arc::new(AtomicU64::new(0));
        let clock = Arc::new(QueueClock::default());
        let books = Arc::new(SearchBooks::default());
        for _ in 0..workers.max(1) {
            let process = Process::spawn(path, priority).await?;
            name = process.name.clone();
            let worker = Worker {
                path: path.to_path_buf(),
                priority,
                queue: queue.clone(),
                abandoned: abandoned.clone(),
                clock: clock.clone(),
                books: books.clone(),
            };
            tokio::spawn(worker.serve(Some(process)));
        }
        Ok(StockfishEngine {
            jobs,
            name,
            abandoned,
            clock,
            books,
        })
    }

    /// How many queued jobs were dropped because nobody waited for them any more.
    pub fn abandoned(&self) -> u64 {
        self.abandoned.load(Ordering::Relaxed)
    }
}

#[async_trait]
impl Engine for StockfishEngine {
    fn name(&self) -> String {
        self.name.clone()
    }

    async fn choose_move(&self, req: &SearchRequest) -> Result<Chosen, EngineError> {
        match self.ask(Work::Choose(req.clone())).await? {
            Answer::Move(m) => Ok(m),
            _ => Err(EngineError::Protocol("no move where a move was due".into())),
        }
    }

    async fn evaluate(&self, fen: &str, nodes: u64) -> Result<Score, EngineError> {
        let work = Work::Evaluate {
            fen: fen.to_string(),
            nodes,
        };
        match self.ask(work).await? {
            Answer::Score(s) => Ok(s),
            _ => Err(EngineError::Protocol("no score where a score was due".into())),
        }
    }

    async fn best_line(&self, fen: &str, nodes: u64) -> Result<BestLine, EngineError> {
        let work = Work::Best {
            fen: fen.to_string(),
            nodes,
        };
        match self.ask(work).await? {
            Answer::Best(b) => Ok(b),
            _ => Err(EngineError::Protocol("no best line where one was due".into())),
        }
    }

    fn queue_wait(&self) -> Duration {
        self.clock.wait(Instant::now())
    }

    fn searches(&self) -> SearchTally {
        self.books.tally()
    }
}

impl StockfishEngine {
    async fn ask(&self, work: Work) -> Result<Answer, EngineError> {
        let (reply, rx) = oneshot::channel();
        let gone = || EngineError::Process("engine actor stopped".into());
        let queued_at = Instant::now();
        self.clock.queued(queued_at);
        let job = Job { work, reply, queued_at };
        if self.jobs.send(job).await.is_err() {
            self.clock.unqueued(queued_at);
            return Err(gone());
        }
        rx.await.map_err(|_| gone())?
    }
}

type Queue = Arc<Mutex<mpsc::Receiver<Job>>>;

/// One worker: owns one process (restarted when it dies) and serves jobs from
/// the shared queue until the engine is dropped.
struct Worker {
    path: PathBuf,
    priority: Priority,
    queue: Queue,
    abandoned: Arc<AtomicU64>,
    clock: Arc<QueueClock>,
    books: Arc<SearchBooks>,
}

impl Worker {
    async fn serve(self, mut process: Option<Process>) {
        loop {
            let next = self.queue.lock().await.recv().await;
            let Some(job) = next else { break };
            self.clock.taken(job.queued_at, Instant::now());
            // An evaluation past its time budget is dropped by its asker; under
            // load, searching it anyway would only make the next one late too.
            if job.reply.is_closed() {
                self.abandoned.fetch_add(1, Ordering::Relaxed);
                continue;
            }
            let result = self.run(&mut process, &job.work).await;
            let _ = job.reply.send(result);
        }
    }

    /// The job on this worker's process, on a fresh one if it fails once.
    async fn run(&self, process: &mut Option<Process>, work: &Work) -> Result<Answer, EngineError> {
        let mut result = Err(EngineError::Process("not started".into()));
        for _attempt in 0..2 {
            if process.is_none() {
                *process = Process::spawn(&self.path, self.priority)
                    .await
                    .map_err(|e| tracing::warn!("restarting stockfish: {e}"))
                    .ok();
            }
            let Some(p) = process.as_mut() else { continue };
            result = match work {
                Work::Choose(req) => p.search(req).await.map(|(chosen, reached)| {
                    if let SearchBudget::Nodes {
                        nodes,
                        within_ms: Some(_),
                    } = req.budget
                    {
                        self.books.record(nodes, reached);
                    }
                    Answer::Move(chosen)
                }),
                Work::Evaluate { fen, nodes } => p.evaluate(fen, *nodes).await.map(|(s, _)| Answer::Score(s)),
                Work::Best { fen, nodes } => p.evaluate(fen, *nodes).await.and_then(|(score, best)| {
                    let uci = best.ok_or(EngineError::NoMove)?;
                    Ok(Answer::Best(BestLine { uci, score }))
                }),
            };
            if matches!(result, Ok(_) | Err(EngineError::NoMove)) {
                break;
            }
            // The process failed: dropping it kills it; the next attempt starts afresh.
            *process = None;
        }
        result
    }
}
