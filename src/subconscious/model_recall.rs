//! The subconscious on a language model, as an agent with one search tool:
//! it may call `search_memories` several times (a query, optional types and
//! dates), then `provide` the memories worth handing over, each with a
//! reason, or provide nothing. Searches keep the same guard rails as the
//! heuristic (this player and persona, lore, minus recently given and just
//! created); it can only provide what its searches returned.

use std::collections::HashMap;

use chrono::NaiveDate;
use serde::Deserialize;
use serde_json::json;

use crate::config::RoleConfig;
use crate::ids::MemoryId;
use crate::llm::{ChatModel, ChatRequest, LlmError, Message, Tool, ToolCall};
use crate::memory::vector::SearchFilter;
use crate::memory::{MemoryService, MemoryType, Recalled};

/// Model turns before it must have provided.
const MAX_ROUNDS: usize = 4;
const RESULTS_PER_SEARCH: usize = 6;
/// Tags one search may ask for.
const MAX_TAGS: usize = 8;

#[derive(Deserialize)]
struct SearchArgs {
    query: String,
    #[serde(default)]
    types: Vec<MemoryType>,
    /// YYYY-MM-DD
    #[serde(default)]
    after: Option<String>,
    #[serde(default)]
    before: Option<String>,
    /// Concept tags ("fork", "rook_endgame", "opening:sicilian-defense"):
    /// only memories naming one of them.
    #[serde(default)]
    tags: Vec<String>,
}

#[derive(Deserialize)]
struct ProvideArgs {
    #[serde(default)]
    memories: Vec<Provided>,
}

#[derive(Deserialize)]
struct Provided {
    id: String,
    #[serde(default)]
    reason: String,
}

pub struct Session<'a> {
    pub model: &'a dyn ChatModel,
    pub memory: &'a MemoryService,
    /// The heuristic's filter: player, persona, lore, exclusions.
    pub base: SearchFilter,
    pub sampling: RoleConfig,
    pub limit: usize,
}

/// What the model chose, or `None` if it never provided (the caller then
/// falls back to the heuristic).
pub async fn choose(s: &Session<'_>, persona: &str, situation: &str) -> Result<Option<Vec<Recalled>>, LlmError> {
    let mut messages = vec![
        Message::system(format!(
            "You are the subconscious of {persona}, a chess-club member. Before {persona} speaks, you look \
             through their memories of this player and of the club for what matters right now. Call \
             search_memories (as often as useful), then call provide with the ids worth remembering now, \
             each with a short reason, or with an empty list if nothing fits. At most {} memories.",
            s.limit
        )),
        Message::user(situation.to_string()),
    ];
    let mut seen: HashMap<String, Recalled> = HashMap::new();
    for _ in 0..MAX_ROUNDS {
        let mut req = ChatRequest::new(messages.clone(), s.sampling.temperature, s.sampling.max_tokens);
        req.tools = tools();
        let reply = s.model.chat(&req).await?;
        if reply.tool_calls.is_empty() {
            return Ok(None);
        }
        let mut assistant = Message::assistant(reply.content.clone());
        assistant.tool_calls = reply.tool_calls.clone();
        messages.push(assistant);
        for call in &reply.tool_calls {
            if call.name == "provide" {
                return Ok(Some(provided(call, &mut seen, s.limit)));
            }
            let answer = search(s, call, &mut seen).await;
            messages.push(Message::tool_result(&call.id, answer));
        }
    }
    Ok(None)
}

async fn search(s: &Session<'_>, call: &ToolCall, seen: &mut HashMap<String, Recalled>) -> String {
    if call.name != "search_memories" {
        return format!("error: unknown tool {}", call.name);
    }
    let args: SearchArgs = match serde_json::from_str(&call.arguments) {
        Ok(a) => a,
        Err(e) => return format!("error: bad arguments ({e})"),
    };
    let day = |d: &Option<String>| {
        d.as_deref()
            .and_then(|d| NaiveDate::parse_from_str(d, "%Y-%m-%d").ok())
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .map(|t| t.and_utc().timestamp())
    };
    let tags = args
        .tags
        .iter()
        .take(MAX_TAGS)
        .map(|t| t.trim().to_lowercase())
        .collect();
    let filter = SearchFilter {
        types: args.types,
        tags,
        created_after: day(&args.after),
        created_before: day(&args.before),
        ..s.base.clone()
    };
    match s.memory.search(&args.query, filter, RESULTS_PER_SEARCH, f32::MIN).await {
        Ok(found) if found.is_empty() => "no memories found".into(),
        Ok(found) => found
            .into_iter()
            .map(|r| {
                let line = format!(
                    "{} | {} | {} | {} | {}",
                    r.memory.id,
                    r.memory.memory_type.as_str(),
                    r.memory.created_at.format("%Y-%m-%d"),
                    r.memory.tags.join(", "),
                    r.memory.content
                );
                seen.insert(r.memory.id.to_string(), r);
                line
            })
            .collect::<Vec<_>>()
            .join("\n"),
        Err(e) => format!("error: {e}"),
    }
}

/// The provided ids that a search returned, with the model's reasons.
fn provided(call: &ToolCall, seen: &mut HashMap<String, Recalled>, limit: usize) -> Vec<Recalled> {
    let args: ProvideArgs = serde_json::from_str(&call.arguments).unwrap_or(ProvideArgs { memories: vec![] });
    args.memories
        .into_iter()
        .filter(|p| p.id.parse::<MemoryId>().is_ok())
        .filter_map(|p| {
            let mut r = seen.remove(&p.id)?;
            let reason: String = p.reason.chars().take(200).collect();
            r.why = if reason.is_empty() {
                "chosen by the subconscious".into()
            } else {
                reason
            };
            Some(r)
        })
        .take(limit)
        .collect()
}

fn tools() -> Vec<Tool> {
    let types: Vec<&str> = MemoryType::ALL.iter().map(|t| t.as_str()).collect();
    let concepts: Vec<&str> = crate::memory::concepts::CONCEPTS.iter().map(|c| c.tag).collect();
    let tag_help = format!(
        "memories naming any of these concepts: {}, or an opening as opening:<family>, e.g. opening:sicilian-defense",
        concepts.join(", ")
    );
    vec![
        Tool {
            name: "search_memories".into(),
            description: "Search memories by meaning, optionally by concept tags, type and date (YYYY-MM-DD). \
                          Each result: id | type | date | tags | text."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "query": {"type": "string"},
                    "tags": {"type": "array", "items": {"type": "string"}, "description": tag_help},
                    "types": {"type": "array", "items": {"type": "string", "enum": types}},
                    "after": {"type": "string"},
                    "before": {"type": "string"}
                },
                "required": ["query"]
            }),
        },
        Tool {
            name: "provide".into(),
            description: "Hand these memories to the persona now (or none).".into(),
            parameters: json!({
                "type": "object",
                "properties": {"memories": {"type": "array", "items": {
                    "type": "object",
                    "properties": {"id": {"type": "string"}, "reason": {"type": "string"}},
                    "required": ["id", "reason"]
                }}},
                "required": ["memories"]
            }),
        },
    ]
}
