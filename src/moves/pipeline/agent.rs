//! One agent of a pipeline: a role prompt, a perspective, and a
//! function-calling loop over `analyze_board`. Every tool-using agent starts
//! from a `deep_analysis` result the harness runs for it (a first call
//! every agent needs, made certain by making it ourselves).

use serde_json::json;
use shakmaty::{Chess, Color, Position};

use crate::chess::tools::{ToolCall as BoardCall, analyze_board};
use crate::llm::{ChatModel, ChatRequest, LlmError, Message, Tool, ToolCall, Usage};
use crate::moves::prompt::side_word;
pub use crate::personas::AgentKind;

/// Whether the agent works the board tools (the mover only prints a move).
pub fn uses_tools(kind: AgentKind) -> bool {
    kind != AgentKind::Mover
}

/// The agent's role, as its system prompt.
fn role_prompt(kind: AgentKind, side: Color) -> String {
    let me = side_word(side);
    let them = side_word(!side);
    let rules = "CHECKMATE OVERRIDE (highest priority): never choose a move after which the opponent can \
                 deliver checkmate; eval and compare show it. Never move a piece that is the sole defender \
                 of a valuable piece without a reason.";
    match kind {
        AgentKind::Player => format!(
            "You play {me}. Assume the opponent is 2700+ Elo: no wishful thinking; if a line depends on \
             the opponent making a mistake, reject it. Use the analyze_board tool. {rules}\n\
             Answer in this format:\nSTRATEGY: <1-2 sentence plan>\nWIN_CONDITION: <concrete goal>\n\
             KEY_MOVE: <UCI move that starts the strategy>\nREASONING: <why this is safe>"
        ),
        AgentKind::Enemy => format!(
            "You play {them} and review {me}'s proposed strategy. Try to destroy it: find the weakness \
             and the concrete punishment. The analyze_board tool answers from {them}'s side.\n\
             Answer in this format:\nWEAKNESS: <vulnerability, or \"none found\">\n\
             PUNISHMENT: <concrete move sequence>\n\
             RATING: <brilliant|good|interesting|dubious|mistake|blunder>"
        ),
        AgentKind::Planner => format!(
            "You play {me}. Find the single best concrete move that advances the strategy you are given. \
             Check sole defenders, compare candidates, verify with eval. {rules}\n\
             Answer with MOVE: <uci> and one line of why."
        ),
        AgentKind::Mover => {
            "Read the analysis and output the recommended move as one UCI move (e.g. e2e4), nothing else.".to_string()
        }
    }
}

/// The `analyze_board` function as OpenAI tools describe it.
pub fn analyze_board_tool() -> Tool {
    Tool {
        name: "analyze_board".into(),
        description: "Deterministic chess analysis of the current position. Actions: legal_moves, captures, \
                      score, eval {moves}, compare {moves}, position_eval, find_threats, deep_threats, \
                      prophylaxis, project {moves}, deep_analysis."
            .into(),
        parameters: json!({
            "type": "object",
            "properties": {
                "action": {"type": "string", "enum": [
                    "legal_moves", "captures", "score", "eval", "compare", "position_eval",
                    "find_threats", "deep_threats", "prophylaxis", "project", "deep_analysis"]},
                "moves": {"type": "array", "items": {"type": "string"}}
            },
            "required": ["action"]
        }),
    }
}

/// Runs one tool call against `pos`; errors come back as text for the model.
pub fn run_tool(pos: &Chess, call: &ToolCall) -> String {
    if call.name != "analyze_board" {
        return format!("error: unknown tool {}", call.name);
    }
    match serde_json::from_str::<BoardCall>(&call.arguments) {
        Ok(board_call) => match analyze_board(pos, &board_call) {
            Ok(result) => result.to_text(),
            Err(e) => format!("error: {e}"),
        },
        Err(e) => format!("error: bad arguments ({e})"),
    }
}

/// What one agent said, with what it cost.
pub struct AgentOutput {
    pub text: String,
    pub usage: Usage,
    pub tool_calls: u32,
}

pub struct AgentRun<'a> {
    pub model: &'a dyn ChatModel,
    pub kind: AgentKind,
    pub side: Color,
    /// The position the agent's tools see (the opponent's view for the enemy).
    pub view: &'a Chess,
    pub brief: String,
    pub temperature: f32,
    pub max_tokens: u32,
    pub max_tool_calls: u32,
}

impl AgentRun<'_> {
    pub async fn run(self) -> Result<AgentOutput, LlmError> {
        let mut messages = vec![
            Message::system(role_prompt(self.kind, self.side)),
            Message::user(self.brief.clone()),
        ];
        let mut out = AgentOutput {
            text: String::new(),
            usage: Usage::default(),
            tool_calls: 0,
        };
        if uses_tools(self.kind) {
            self.push_call(&mut messages, r#"{"action":"deep_analysis"}"#, "call_first");
        }
        loop {
            let budget_left = out.tool_calls < self.max_tool_calls;
            let mut req = ChatRequest::new(messages.clone(), self.temperature, self.max_tokens);
            if uses_tools(self.kind) && budget_left {
                req.tools = vec![analyze_board_tool()];
            }
            let reply = self.model.chat(&req).await?;
            out.usage += reply.usage;
            if reply.tool_calls.is_empty() || !budget_left {
                out.text = reply.content;
                return Ok(out);
            }
            let mut assistant = Message::assistant(reply.content);
            assistant.tool_calls = reply.tool_calls.clone();
            messages.push(assistant);
            for call in &reply.tool_calls {
                out.tool_calls += 1;
                messages.push(Message::tool_result(&call.id, run_tool(self.view, call)));
            }
        }
    }

    /// Appends a tool call made on the agent's behalf, and its answer.
    fn push_call(&self, messages: &mut Vec<Message>, arguments: &str, id: &str) {
        let call = ToolCall {
            id: id.into(),
            name: "analyze_board".into(),
            arguments: arguments.into(),
        };
        let mut assistant = Message::assistant("");
        assistant.tool_calls = vec![call.clone()];
        messages.push(assistant);
        messages.push(Message::tool_result(id, run_tool(self.view, &call)));
    }
}

/// The opponent's view: the same position with the other side to move, when
/// that is a legal position (not while in check).
pub fn opponent_view(pos: &Chess) -> Option<Chess> {
    if pos.is_check() {
        return None;
    }
    pos.clone().swap_turn().ok()
}

/// The enemy's rating of a proposal, if it gave one.
pub fn rating(review: &str) -> Option<String> {
    let lower = review.to_ascii_lowercase();
    let at = lower.find("rating:")? + "rating:".len();
    let word: String = lower[at..]
        .trim_start()
        .chars()
        .take_while(|c| c.is_ascii_alphabetic())
        .collect();
    (!word.is_empty()).then_some(word)
}

/// Ratings that send the proposal back to the player.
pub fn is_negative(rating: &str) -> bool {
    matches!(rating, "dubious" | "mistake" | "blunder")
}
