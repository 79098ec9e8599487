//! A composable pipeline of LLM agents, e.g. `p+e+pl+m`: the player proposes a
//! strategy, the enemy reviews it from the other side (a dubious, mistake or
//! blunder rating sends it back, up to `max_review_loops` times), the planner
//! finds the concrete move, the mover prints it. Safety nets: the checkmate
//! override (a move that allows mate in one is refused and the pipeline runs
//! again with that feedback), an illegal move reruns it too, and after
//! `max_reruns` the engine moves and the decision says so.

mod agent;

use std::sync::Arc;

use async_trait::async_trait;
use shakmaty::{Chess, Color};

pub use agent::AgentKind;
use agent::{AgentOutput, AgentRun, is_negative, opponent_view, rating};

use super::prompt::{board_diagram, extract_move, legal_san, side_word};
use super::{EngineBrain, MoveBrain, MoveDecision, MoveError, MoveInput};
use crate::chess::Game;
use crate::chess::tools::{ToolCall as BoardCall, ToolResult, analyze_board};
use crate::llm::{ChatModel, LlmError, Usage};

#[derive(Debug, Clone)]
pub struct PipelineConfig {
    pub agents: Vec<AgentKind>,
    pub temperature: f32,
    pub max_tokens: u32,
    pub max_tool_calls: u32,
    pub max_review_loops: u32,
    pub max_reruns: u32,
}

impl PipelineConfig {
    /// Parses `p+e+pl+m` (or full names joined by `+`).
    pub fn parse(spec: &str) -> Result<Self, String> {
        Ok(PipelineConfig {
            agents: AgentKind::parse_all(spec)?,
            ..PipelineConfig::default()
        })
    }
}

impl Default for PipelineConfig {
    fn default() -> Self {
        PipelineConfig {
            agents: vec![
                AgentKind::Player,
                AgentKind::Enemy,
                AgentKind::Planner,
                AgentKind::Mover,
            ],
            temperature: 0.3,
            max_tokens: 384,
            max_tool_calls: 8,
            max_review_loops: 3,
            max_reruns: 2,
        }
    }
}

pub struct PipelineBrain {
    model: Arc<dyn ChatModel>,
    fallback: EngineBrain,
    config: PipelineConfig,
}

/// What one pass of the pipeline produced.
struct Pass {
    transcript: String,
    final_text: String,
    usage: Usage,
}

impl PipelineBrain {
    pub fn new(model: Arc<dyn ChatModel>, fallback: EngineBrain, config: PipelineConfig) -> Self {
        PipelineBrain {
            model,
            fallback,
            config,
        }
    }

    fn has(&self, kind: AgentKind) -> bool {
        self.config.agents.contains(&kind)
    }

    async fn agent(&self, kind: AgentKind, side: Color, view: &Chess, brief: String) -> Result<AgentOutput, LlmError> {
        AgentRun {
            model: self.model.as_ref(),
            kind,
            side,
            view,
            brief,
            temperature: self.config.temperature,
            max_tokens: if kind == AgentKind::Mover {
                64
            } else {
                self.config.max_tokens
            },
            max_tool_calls: self.config.max_tool_calls,
        }
        .run()
        .await
    }

    /// Player and enemy until the enemy stops objecting (or loops run out).
    async fn strategy(&self, game: &Game, board: &str, feedback: &str, pass: &mut Pass) -> Result<String, LlmError> {
        let side = game.turn();
        let pos = game.position();
        let enemy_view = opponent_view(pos);
        let mut critique = String::new();
        let mut strategy = String::new();
        for round in 0..=self.config.max_review_loops {
            if self.has(AgentKind::Player) {
                let brief = format!("{board}\n{feedback}{critique}");
                let out = self.agent(AgentKind::Player, side, pos, brief).await?;
                pass.usage += out.usage;
                strategy = out.text;
                pass.transcript.push_str(&format!("player: {strategy}\n"));
            }
            let (true, Some(view)) = (self.has(AgentKind::Enemy), enemy_view.as_ref()) else {
                break;
            };
            let brief = format!("{board}\nThe proposal to review:\n{strategy}");
            let out = self.agent(AgentKind::Enemy, !side, view, brief).await?;
            pass.usage += out.usage;
            pass.transcript.push_str(&format!("enemy: {}\n", out.text));
            let verdict = rating(&out.text).unwrap_or_default();
            if !is_negative(&verdict) || round == self.config.max_review_loops || !self.has(AgentKind::Player) {
                break;
            }
            critique = format!(
                "\nThe enemy rated your last proposal {verdict}:\n{}\nRevise your strategy.",
                out.text
            );
        }
        Ok(strategy)
    }

    async fn pass(&self, game: &Game, feedback: &str) -> Result<Pass, LlmError> {
        let side = game.turn();
        let board = format!(
            "You are {}.\n{}\n{}",
            side_word(side),
            board_diagram(game, side),
            legal_san(game)
        );
        let mut pass = Pass {
            transcript: String::new(),
            final_text: String::new(),
            usage: Usage::default(),
        };
        let mut analysis = self.strategy(game, &board, feedback, &mut pass).await?;
        if self.has(AgentKind::Planner) {
            let brief = format!("{board}\n{feedback}\nThe strategy:\n{analysis}");
            let out = self.agent(AgentKind::Planner, side, game.position(), brief).await?;
            pass.usage += out.usage;
            pass.transcript.push_str(&format!("planner: {}\n", out.text));
            analysis = out.text;
        }
        if self.has(AgentKind::Mover) {
            let brief = format!("{}\n{feedback}The analysis:\n{analysis}", legal_san(game));
            let out = self.agent(AgentKind::Mover, side, game.position(), brief).await?;
            pass.usage += out.usage;
            pass.transcript.push_str(&format!("mover: {}\n", out.text));
            analysis = out.text;
        }
        pass.final_text = analysis;
        Ok(pass)
    }
}

/// The move a pass recommends: `KEY_MOVE:`/`MOVE:` lines first, then any move.
fn recommended(text: &str) -> Option<String> {
    for key in ["MOVE:", "KEY_MOVE:"] {
        if let Some(at) = text.find(key) {
            let line = text[at + key.len()..].lines().next().unwrap_or("");
            if let Some(m) = extract_move(&format!("## Move\n{line}")) {
                return Some(m);
            }
        }
    }
    extract_move(text)
}

/// The checkmate override: the opponent's mating reply, if `uci` allows one.
fn allows_mate(game: &Game, uci: &str) -> Option<String> {
    let call = BoardCall::Eval {
        moves: vec![uci.to_string()],
    };
    match analyze_board(game.position(), &call) {
        Ok(ToolResult::Eval(e)) => e.into_iter().next().and_then(|s| s.allows_mate_in_one),
        _ => None,
    }
}

#[async_trait]
impl MoveBrain for PipelineBrain {
    fn name(&self) -> String {
        let names: Vec<String> = self
            .config
            .agents
            .iter()
            .map(|a| format!("{a:?}").to_lowercase())
            .collect();
        format!("pipeline {} on {}", names.join("+"), self.model.describe())
    }

    async fn choose(&mut self, input: MoveInput<'_>) -> Result<MoveDecision, MoveError> {
        let game = input.game;
        let mut feedback = String::new();
        let (mut usage, mut illegal, mut transcript) = (Usage::default(), 0, String::new());
        for _ in 0..=self.config.max_reruns {
            let pass = match self.pass(game, &feedback).await {
                Ok(p) => p,
                Err(e) => {
                    feedback = format!("fallback: {e}");
                    break;
                }
            };
            usage += pass.usage;
            transcript.push_str(&pass.transcript);
            let Some(candidate) = recommended(&pass.final_text) else {
                illegal += 1;
                feedback = "Your last answer named no move. Name one legal move.\n".into();
                continue;
            };
            let uci = match game.parse(&candidate) {
                Ok(m) => crate::chess::notation::uci(m),
                Err(e) => {
                    illegal += 1;
                    feedback = format!("Your last move {candidate} was illegal: {e}. Choose from the legal moves.\n");
                    continue;
                }
            };
            if let Some(mate) = allows_mate(game, &uci) {
                feedback =
                    format!("CHECKMATE OVERRIDE: {candidate} allows {mate}, mate in one. Choose another move.\n");
                continue;
            }
            return Ok(MoveDecision {
                usage,
                illegal,
                reasoning: Some(transcript),
                ..MoveDecision::play(uci)
            });
        }
        let chosen = self.fallback.engine_move(game.fen()).await?;
        Ok(MoveDecision {
            usage,
            illegal,
            fallback: true,
            reasoning: Some(format!("{transcript}fallback to the engine ({})", feedback.trim())),
            ..MoveDecision::engine(chosen)
        })
    }
}

#[cfg(test)]
mod tests;
