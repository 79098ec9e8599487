//! One Stockfish child process over UCI: started (at the lowest priority
//! for spare work), its handshake, a persona's search with its Elo and
//! style lines, a full-strength evaluation, and the options it was last
//! sent. Killed when dropped.

use std::collections::HashMap;
use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout, Command};

use crate::chess::engine::style::{Candidate, shape_choice};
use crate::chess::engine::uci::{EngineLine, Score, parse_line};
use crate::chess::engine::{Chosen, EngineError, Priority, SearchBudget, SearchRequest};

/// Lines Stockfish reports per search, for style to choose among. Its own
/// strength limit searches at least four anyway, so this costs nothing.
const STYLE_LINES: u32 = 4;

const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(5);
/// Slack on top of the requested movetime before a search counts as hung.
const SEARCH_SLACK: Duration = Duration::from_secs(5);

/// Longest a fixed-node search may take before it counts as hung.
const NODES_LIMIT: Duration = Duration::from_secs(10);

pub(super) struct Process {
    _child: Child,
    stdin: ChildStdin,
    lines: Lines<BufReader<ChildStdout>>,
    pub(super) name: String,
    elo_range: Option<(i64, i64)>,
    options: Options,
}

impl Process {
    pub(super) async fn spawn(path: &Path, priority: Priority) -> Result<Self, EngineError> {
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
    pub(super) async fn search(&mut self, req: &SearchRequest) -> Result<(Chosen, u64), EngineError> {
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
    pub(super) async fn evaluate(&mut self, fen: &str, nodes: u64) -> Result<(Score, Option<String>), EngineError> {
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
