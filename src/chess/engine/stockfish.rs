//! Stockfish as an actor: one task owns the child process and serves search
//! jobs from a channel, one at a time. The child is killed when dropped; if it
//! dies mid-search the actor starts a fresh one and tries the job once more.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};
use tokio::sync::{Mutex, mpsc, oneshot};

use super::queue::QueueClock;
use super::style::{Candidate, shape_choice};
use super::uci::{EngineLine, Score, parse_line};
use super::{BestLine, Chosen, Engine, EngineError, Priority, SearchBooks, SearchBudget, SearchRequest, SearchTally};

/// Lines Stockfish reports per search, for style to choose among. Its own
/// strength limit searches at least four anyway, so this costs nothing.
const STYLE_LINES: u32 = 4;

const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(5);
/// Slack on top of the requested movetime before a search counts as hung.
const SEARCH_SLACK: Duration = Duration::from_secs(5);

/// Longest a fixed-node search may take before it counts as hung.
const NODES_LIMIT: Duration = Duration::from_secs(10);

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

struct Process {
    _child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
    name: String,
    elo_range: Option<(i64, i64)>,
    options: Options,
}

impl Process {
    async fn spawn(path: &Path, priority: Priority) -> Result<Self, EngineError> {
        let mut command = Command::new(path);
        if priority == Priority::Spare {
            lowest_priority(&mut command);
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| EngineError::Process(format!("{}: {e}", path.display())))?;
        let io = |what| EngineError::Process(format!("no {what} pipe"));
        let stdin = child.stdin.take().ok_or_else(|| io("stdin"))?;
        let stdout = child.stdout.take().ok_or_else(|| io("stdout"))?;
        let mut p = Process {
            _child: child,
            stdin,
            lines: BufReader::new(stdout).lines(),
            name: "stockfish".into(),
            elo_range: None,
            options: Options::default(),
        };
        p.handshake().await?;
        Ok(p)
    }

    async fn handshake(&mut self) -> Result<(), EngineError> {
        self.send("uci").await?;
        let (mut name, mut elo) = (None, None);
        self.read_until(HANDSHAKE_TIMEOUT, |line| match line {
            EngineLine::IdName(n) => {
                name = Some(n);
                None
            }
            EngineLine::SpinOption { name, min, max, .. } if name == "UCI_Elo" => {
                elo = Some((min, max));
                None
            }
            EngineLine::UciOk => Some(()),
            _ => None,
        })
        .await?;
        self.name = name.unwrap_or_else(|| "stockfish".into());
        self.elo_range = elo;
        self.send("isready").await?;
        self.read_until(HANDSHAKE_TIMEOUT, |l| (l == EngineLine::ReadyOk).then_some(()))
            .await
    }

    /// A move at the persona's Elo, bent by its style among the MultiPV lines
    /// and, below the engine's lowest Elo, by occasional slips; scored by the
    /// latest exact score the search gave it (the strength limit picks among
    /// lines searched at full strength, at a shallow depth, so the pick may
    /// have left the final lines: its score is then that depth's).
    /// Also the nodes it reached (Stockfish's last report of them).
    async fn search(&mut self, req: &SearchRequest) -> Result<(Chosen, u64), EngineError> {
        // The range differs between Stockfish versions: read it, then clamp.
        let elo = self.elo_range.map(|(min, max)| (req.elo as i64).clamp(min, max));
        let floor = self.elo_range.map(|(min, _)| min as u32);
        // One write for the whole request: a pipe write and an engine wake-up
        // per line cost more than the search itself at a millisecond's movetime.
        let mut out = self.options.set(elo, STYLE_LINES);
        let (go, limit) = match req.budget {
            SearchBudget::Millis(ms) => (format!("movetime {ms}"), Duration::from_millis(ms) + SEARCH_SLACK),
            SearchBudget::Nodes { nodes, within_ms: None } => (format!("nodes {nodes}"), NODES_LIMIT),
            SearchBudget::Nodes {
                nodes,
                within_ms: Some(ms),
            } => (
                format!("nodes {nodes} movetime {ms}"),
                Duration::from_millis(ms) + SEARCH_SLACK,
            ),
        };
        out.push_str(&format!("position fen {}\ngo {go}\n", req.fen));
        self.write(&out).await?;
        let mut lines: Vec<Candidate> = Vec::new();
        let mut scored: HashMap<String, Score> = HashMap::new();
        let mut reached = 0;
        let best = self
            .read_until(limit, |line| match line {
                EngineLine::Info {
                    score: Some(score),
                    multipv,
                    pv,
                    nodes,
                    ..
                } => {
                    reached = reached.max(nodes.unwrap_or(0));
                    if let Some(first) = pv.first() {
                        scored.insert(first.clone(), score.clone());
                    }
                    remember_line(&mut lines, multipv.unwrap_or(1), score, pv);
                    None
                }
                EngineLine::Info { nodes, .. } => {
                    reached = reached.max(nodes.unwrap_or(0));
                    None
                }
                EngineLine::BestMove { mv } => Some(mv),
                _ => None,
            })
            .await?;
        let best = best.ok_or(EngineError::NoMove)?;
        let uci = shape_choice(req, floor, &best, &lines);
        let score_after = scored.get(&uci).map(Score::after_move);
        let root_score = lines
            .first()
            .filter(|best| !best.uci.is_empty())
            .map(|best| best.score.clone());
        let chosen = Chosen {
            uci,
            root_score,
            score_after,
        };
        Ok((chosen, reached))
    }

    /// Full strength, fixed nodes; the last exact score of the main line,
    /// and its move (none where there is no legal move).
    async fn evaluate(&mut self, fen: &str, nodes: u64) -> Result<(Score, Option<String>), EngineError> {
        let mut out = self.options.set(None, 1);
        out.push_str(&format!("position fen {fen}\ngo nodes {nodes}\n"));
        self.write(&out).await?;
        let mut last = None;
        let best = self
            .read_until(NODES_LIMIT, |line| match line {
                EngineLine::Info {
                    score: Some(score),
                    multipv: None | Some(1),
                    ..
                } => {
                    last = Some(score);
                    None
                }
                EngineLine::BestMove { mv } => Some(mv),
                _ => None,
            })
            .await?;
        let score = last.ok_or_else(|| EngineError::Protocol("no score before bestmove".into()))?;
        Ok((score, best))
    }

    async fn send(&mut self, cmd: &str) -> Result<(), EngineError> {
        self.write(&format!("{cmd}\n")).await
    }

    /// Writes whole lines and flushes them at once.
    async fn write(&mut self, lines: &str) -> Result<(), EngineError> {
        self.stdin
            .write_all(lines.as_bytes())
            .await
            .map_err(|e| EngineError::Process(e.to_string()))?;
        self.stdin
            .flush()
            .await
            .map_err(|e| EngineError::Process(e.to_string()))
    }

    async fn read_until<T>(
        &mut self,
        limit: Duration,
        mut pick: impl FnMut(EngineLine) -> Option<T>,
    ) -> Result<T, EngineError> {
        let read = async {
            loop {
                match self.lines.next_line().await {
                    Ok(Some(line)) => {
                        if let Some(found) = pick(parse_line(&line)) {
                            return Ok(found);
                        }
                    }
                    Ok(None) => return Err(EngineError::Process("engine exited".into())),
                    Err(e) => return Err(EngineError::Process(e.to_string())),
                }
            }
        };
        tokio::time::timeout(limit, read)
            .await
            .map_err(|_| EngineError::Protocol(format!("no answer within {limit:?}")))?
    }
}

/// The child runs under SCHED_IDLE at nice 19: on a busy machine the
/// scheduler gives it only what the live searches leave, and a live task
/// that wakes takes the core from it at once (a nice-19 task alone kept it
/// until its slice ended, and the deeper evaluation used as much CPU as the
/// live searches under load); on an idle machine it gets all it wants.
fn lowest_priority(command: &mut Command) {
    // SAFETY: between fork and exec the closure makes two syscalls on the
    // child itself, async-signal-safe, allocating nothing.
    unsafe {
        command.pre_exec(|| {
            // A failure leaves the child at its parent's priority: slower
            // live searches under load, but no lost evaluation.
            libc::setpriority(libc::PRIO_PROCESS, 0, 19);
            let param = libc::sched_param { sched_priority: 0 };
            libc::sched_setscheduler(0, libc::SCHED_IDLE, &param);
            Ok(())
        });
    }
}

/// The options last sent to one process (a fresh process starts at the
/// engine's defaults), so a request sends only what changes.
#[derive(Debug, PartialEq)]
struct Options {
    /// The Elo the strength limit is set to; None: full strength.
    limited_to: Option<i64>,
    multipv: u32,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            limited_to: None,
            multipv: 1,
        }
    }
}

impl Options {
    /// The `setoption` lines that bring the engine to this strength limit
    /// and MultiPV, empty when both are in force already.
    fn set(&mut self, limit: Option<i64>, multipv: u32) -> String {
        let mut out = String::new();
        if self.limited_to != limit {
            match limit {
                Some(elo) => {
                    if self.limited_to.is_none() {
                        out.push_str("setoption name UCI_LimitStrength value true\n");
                    }
                    out.push_str(&format!("setoption name UCI_Elo value {elo}\n"));
                }
                None => out.push_str("setoption name UCI_LimitStrength value false\n"),
            }
            self.limited_to = limit;
        }
        if self.multipv != multipv {
            out.push_str(&format!("setoption name MultiPV value {multipv}\n"));
            self.multipv = multipv;
        }
        out
    }
}

/// Keeps the latest exact line per MultiPV index (deeper replaces shallower).
fn remember_line(lines: &mut Vec<Candidate>, index: u32, score: Score, pv: Vec<String>) {
    let Some(first) = pv.into_iter().next() else { return };
    let slot = index.saturating_sub(1) as usize;
    if lines.len() <= slot {
        lines.resize(
            slot + 1,
            Candidate {
                uci: String::new(),
                score: Score::Cp(i32::MIN / 2),
            },
        );
    }
    lines[slot] = Candidate { uci: first, score };
}

#[cfg(test)]
mod tests {
    use super::Options;

    #[test]
    fn options_are_sent_only_when_they_change() {
        let mut options = Options::default();
        let first = options.set(Some(1500), 4);
        assert_eq!(
            first,
            "setoption name UCI_LimitStrength value true\nsetoption name UCI_Elo value 1500\n\
             setoption name MultiPV value 4\n"
        );
        assert_eq!(options.set(Some(1500), 4), "", "nothing changed");
        assert_eq!(options.set(Some(1800), 4), "setoption name UCI_Elo value 1800\n");
        assert_eq!(
            options.set(None, 1),
            "setoption name UCI_LimitStrength value false\nsetoption name MultiPV value 1\n"
        );
        // Back to a limit: the switch and the Elo both go again.
        assert_eq!(
            options.set(Some(1800), 1),
            "setoption name UCI_LimitStrength value true\nsetoption name UCI_Elo value 1800\n"
        );
    }
}
