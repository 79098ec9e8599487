//! A language model plays the move: one chat thread per
//! game and side, the full board only in the current turn (history keeps
//! compact labels), the legal moves injected in SAN, the board commands
//! `get_current_board` / `get_legal_moves` / `make_move <uci>`, a two-stage
//! rejection reason (no move found / move not legal) and up to `max_retries`
//! retries; then the engine moves, and the decision says so.

use std::sync::Arc;

use async_trait::async_trait;
use shakmaty::Color;

use super::prompt::{asks_for, board_diagram, extract_move, legal_san, move_number, side_word};
use super::{EngineBrain, MoveBrain, MoveDecision, MoveError, MoveInput};
use crate::chess::Game;
use crate::llm::{ChatModel, ChatRequest, Message, Usage};

#[derive(Debug, Clone)]
pub struct LlmBrainConfig {
    pub temperature: f32,
    pub max_tokens: u32,
    /// Rejected answers tolerated before the engine moves instead.
    pub max_retries: u32,
    /// Chat calls per move, board commands included.
    pub max_dialog_turns: u32,
    /// Past moves kept in the thread (each a label and a clipped answer).
    pub history_moves: usize,
}

impl Default for LlmBrainConfig {
    fn default() -> Self {
        LlmBrainConfig {
            temperature: 0.3,
            max_tokens: 256,
            max_retries: 3,
            max_dialog_turns: 10,
            history_moves: 8,
        }
    }
}

/// Characters of a past answer kept in the thread.
const HISTORY_ANSWER_CHARS: usize = 300;

pub struct LlmBrain {
    model: Arc<dyn ChatModel>,
    fallback: EngineBrain,
    config: LlmBrainConfig,
    /// Past turns only: (compact label, clipped answer).
    history: Vec<(String, String)>,
}

/// Where one move's dialog stands.
struct Turn {
    messages: Vec<Message>,
    usage: Usage,
    rejected: u32,
    calls: u32,
}

impl LlmBrain {
    pub fn new(model: Arc<dyn ChatModel>, fallback: EngineBrain, config: LlmBrainConfig) -> Self {
        LlmBrain {
            model,
            fallback,
            config,
            history: Vec::new(),
        }
    }

    fn system_prompt(side: Color) -> String {
        format!(
            "You are playing chess as {side} ({side} pieces) in a standard game.\n\n\
             You may first send one command on its own: get_current_board or get_legal_moves.\n\
             When ready, respond in this exact format, two sections, nothing else:\n\n\
             ## Reasoning\nThink through the position: threats, tactics, your plan. Be concise.\n\n\
             ## Move\nYour chosen move in SAN notation (e.g. e4, Nf3, cxd4, O-O, e8=Q), or make_move <uci>.\n\n\
             Rules for the ## Move section:\n- One move only, on its own line\n\
             - It MUST be from the legal moves list you are given",
            side = side_word(side)
        )
    }

    fn current_turn(game: &Game, side: Color, input: &MoveInput<'_>) -> String {
        let n = move_number(game);
        let mut text = format!("[Move {n} — {}]\n", side_word(side));
        if let Some(last) = game.moves().last() {
            text.push_str(&format!("Your opponent played {}.\n", last.san));
        }
        text.push_str(&board_diagram(game, side));
        text.push('\n');
        text.push_str(&legal_san(game));
        for r in input.rejections {
            text.push_str(&format!("\nRejected earlier: {} ({})", r.attempted, r.reason));
        }
        text
    }

    fn messages(&self, side: Color, turn: &Turn) -> Vec<Message> {
        let mut out = vec![Message::system(Self::system_prompt(side))];
        for (label, answer) in &self.history {
            out.push(Message::user(label.clone()));
            out.push(Message::assistant(answer.clone()));
        }
        out.extend(turn.messages.iter().cloned());
        out
    }

    fn remember(&mut self, game: &Game, side: Color, answer: &str) {
        let label = format!("[Move {} — {}]", move_number(game), side_word(side));
        let clipped: String = answer.trim().chars().take(HISTORY_ANSWER_CHARS).collect();
        self.history.push((label, clipped));
        let excess = self.history.len().saturating_sub(self.config.history_moves);
        self.history.drain(..excess);
    }

    /// Checks an answer: `Ok(uci)` or the reason to show the model.
    fn judge(game: &Game, answer: &str) -> Result<String, (String, String)> {
        let Some(candidate) = extract_move(answer) else {
            return Err((String::new(), "I could not find a move in your answer.".into()));
        };
        match game.parse(&candidate) {
            Ok(m) => Ok(crate::chess::notation::uci(m)),
            Err(e) => Err((
                candidate.clone(),
                format!("{candidate} is not legal in this position: {e}."),
            )),
        }
    }

    async fn fall_back(&mut self, game: &Game, side: Color, turn: Turn, why: &str) -> Result<MoveDecision, MoveError> {
        tracing::info!(model = %self.model.describe(), "LLM move brain fell back to the engine: {why}");
        let chosen = self.fallback.engine_move(game.fen()).await?;
        self.remember(
            game,
            side,
            &format!("(no usable answer; the engine played {})", chosen.uci),
        );
        Ok(MoveDecision {
            usage: turn.usage,
            illegal: turn.rejected,
            fallback: true,
            reasoning: Some(format!("fallback: {why}")),
            ..MoveDecision::engine(chosen)
        })
    }
}

#[async_trait]
impl MoveBrain for LlmBrain {
    fn name(&self) -> String {
        format!("llm {}", self.model.describe())
    }

    async fn choose(&mut self, input: MoveInput<'_>) -> Result<MoveDecision, MoveError> {
        let game = input.game;
        let side = game.turn();
        let mut turn = Turn {
            messages: vec![Message::user(Self::current_turn(game, side, &input))],
            usage: Usage::default(),
            rejected: 0,
            calls: 0,
        };
        while turn.calls < self.config.max_dialog_turns {
            turn.calls += 1;
            let req = ChatRequest::new(
                self.messages(side, &turn),
                self.config.temperature,
                self.config.max_tokens,
            );
            let reply = match self.model.chat(&req).await {
                Ok(r) => r,
                Err(e) => return self.fall_back(game, side, turn, &e.to_string()).await,
            };
            turn.usage += reply.usage;
            let answer = reply.content;
            turn.messages.push(Message::assistant(answer.clone()));
            if asks_for(&answer, "get_current_board") {
                turn.messages.push(Message::user(board_diagram(game, side)));
                continue;
            }
            if asks_for(&answer, "get_legal_moves") {
                turn.messages.push(Message::user(legal_san(game)));
                continue;
            }
            match Self::judge(game, &answer) {
                Ok(uci) => {
                    self.remember(game, side, &answer);
                    return Ok(MoveDecision {
                        usage: turn.usage,
                        illegal: turn.rejected,
                        reasoning: Some(answer),
                        ..MoveDecision::play(uci)
                    });
                }
                Err((_, reason)) => {
                    let clipped: String = answer.chars().take(160).collect();
                    tracing::debug!(model = %self.model.describe(), "rejected answer {clipped:?}: {reason}");
                    turn.rejected += 1;
                    if turn.rejected > self.config.max_retries {
                        return self.fall_back(game, side, turn, "retries exhausted").await;
                    }
                    let again = format!(
                        "{reason} Answer again with ## Reasoning and ## Move; the move MUST be in the legal moves list."
                    );
                    turn.messages.push(Message::user(again));
                }
            }
        }
        self.fall_back(game, side, turn, "dialog turns exhausted").await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chess::engine::{BuiltinEngine, SearchBudget, Style};
    use crate::llm::ScriptedModel;

    fn brain(model: Arc<ScriptedModel>) -> LlmBrain {
        let engine = EngineBrain::new(
            Arc::new(BuiltinEngine),
            1500,
            Style::Positional,
            SearchBudget::Millis(50),
        );
        LlmBrain::new(model, engine, LlmBrainConfig::default())
    }

    async fn choose(b: &mut LlmBrain, game: &Game) -> MoveDecision {
        b.choose(MoveInput { game, rejections: &[] }).await.unwrap()
    }

    #[tokio::test]
    async fn commands_are_answered_and_a_san_move_is_played() {
        let model = Arc::new(
            ScriptedModel::new()
                .then_text("get_legal_moves")
                .then_text("get_current_board")
                .then_text("## Reasoning\nCentre.\n## Move\ne4"),
        );
        let mut b = brain(model.clone());
        let game = Game::new(None).unwrap();
        let d = choose(&mut b, &game).await;
        assert_eq!(d.action, super::super::MoveAction::Move("e2e4".into()));
        assert!(!d.fallback && d.illegal == 0);
        let last = model.requests().pop().unwrap();
        let texts: Vec<&str> = last.messages.iter().map(|m| m.content.as_str()).collect();
        assert!(texts[1].contains("Position (FEN)") && texts[1].contains("Legal moves (20)"));
        assert!(texts[3].starts_with("Legal moves (20)"), "{texts:?}");
        assert!(texts[5].starts_with("Position (FEN)"), "{texts:?}");
    }

    #[tokio::test]
    async fn two_stage_rejections_then_the_engine_and_history_stays_compact() {
        let model = Arc::new(
            ScriptedModel::new()
                .then_text("## Move\nthe knight")
                .then_text("## Move\nQh5")
                .then_text("## Move\nKe3")
                .then_text("## Move\ne2e5")
                .then_text("## Reasoning\nfine\n## Move\nd5"),
        );
        let mut b = brain(model.clone());
        let mut game = Game::new(None).unwrap();
        let d = choose(&mut b, &game).await;
        assert!(d.fallback, "three retries, then the engine");
        assert_eq!(d.illegal, 4);
        let reqs = model.requests();
        let second = &reqs[1].messages.last().unwrap().content;
        assert!(second.contains("is not legal"), "{second}");
        let after_first = &reqs[1].messages[reqs[1].messages.len() - 2].content;
        assert_eq!(after_first, "## Move\nthe knight");
        let first_reason = &reqs[1].messages.last().unwrap().content;
        assert!(first_reason.contains("the is not legal") || first_reason.contains("could not find"));

        // The next move: the thread holds a label, not the old board.
        let super::super::MoveAction::Move(uci) = d.action else {
            panic!()
        };
        let m = game.parse(&uci).unwrap();
        game.play(m);
        let d = choose(&mut b, &game).await;
        assert!(!d.fallback);
        let last = model.requests().pop().unwrap();
        assert_eq!(last.messages[1].content, "[Move 1 — WHITE]");
        assert_eq!(
            last.messages
                .iter()
                .filter(|m| m.content.contains("Position (FEN)"))
                .count(),
            1
        );
    }

    #[tokio::test]
    async fn a_broken_model_never_stalls_the_move() {
        let model = Arc::new(ScriptedModel::new());
        let mut b = brain(model);
        let game = Game::new(None).unwrap();
        let d = choose(&mut b, &game).await;
        assert!(d.fallback);
        let super::super::MoveAction::Move(uci) = d.action else {
            panic!()
        };
        assert!(game.parse(&uci).is_ok());
    }
}
