//! `[llm]`: the language models the agents and LLM move brains use. Endpoints
//! are tried in priority order (a preflight picks the first that answers; a
//! match fails over one way to the next), each role has its own sampling.

use serde::{Deserialize, Serialize};

use super::declare::{NONE, env, section};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ApiKind {
    /// OpenAI chat completions: Ollama, vLLM, llama.cpp's server, OpenAI, Gemini.
    Openai,
    /// Anthropic Messages.
    Anthropic,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EndpointConfig {
    pub name: String,
    #[serde(default = "openai")]
    pub kind: ApiKind,
    /// Up to the API version, e.g. `http://127.0.0.1:11434/v1` or `https://api.anthropic.com`.
    #[serde(serialize_with = "super::redact::url")]
    pub url: String,
    pub model: String,
    /// The environment variable that holds the key (the key itself is never
    /// written in a file, logged or shown).
    #[serde(default)]
    pub api_key_env: Option<String>,
}

fn openai() -> ApiKind {
    ApiKind::Openai
}

impl EndpointConfig {
    pub fn api_key(&self) -> Option<String> {
        let var = self.api_key_env.as_deref()?;
        std::env::var(var).ok().filter(|k| !k.is_empty())
    }
}

/// Sampling for one role (main agent, subconscious, move brain).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoleConfig {
    pub temperature: f32,
    pub max_tokens: u32,
}

impl RoleConfig {
    pub const fn new(temperature: f32, max_tokens: u32) -> RoleConfig {
        RoleConfig {
            temperature,
            max_tokens,
        }
    }
}

section! {
    /// The language models, and how long their words may take.
    pub struct LlmConfig {
        /// Shorthand for one OpenAI-compatible endpoint, tried first.
        #[serde(serialize_with = "super::redact::opt_url")]
        pub url: Option<String> = None, env("KIBITZ_LLM_URL").url();
        /// The model the `url` shorthand asks for.
        pub model: String = "default".into(), env("KIBITZ_LLM_MODEL");
        /// The `url` shorthand's API key: from the environment only, never
        /// written or logged.
        #[serde(skip)]
        pub api_key: Option<String> = None, env("KIBITZ_LLM_API_KEY").secret().env_only();
        /// More endpoints, in priority order.
        pub endpoints: Vec<EndpointConfig> = Vec::new(), NONE;
        /// Per call.
        pub timeout_secs: u64 = 30, NONE;
        /// The first call of a match may wait this long (a cold model loading).
        pub first_timeout_secs: u64 = 120, NONE;
        /// How long the start-of-match check waits for each endpoint.
        pub preflight_ms: u64 = 1500, NONE;
        /// With no endpoint configured, use a local Ollama if one answers on 127.0.0.1:11434.
        pub detect_ollama: bool = true, env("KIBITZ_LLM_DETECT_OLLAMA");
        /// How long the persona's words in a game may take the model before the
        /// scripted voice speaks instead (its move never waits for them).
        pub words_deadline_ms: u64 = 3000, env("KIBITZ_LLM_WORDS_DEADLINE_MS");
        /// The same for an answer to a chat line.
        pub chat_deadline_ms: u64 = 20_000, env("KIBITZ_LLM_CHAT_DEADLINE_MS");
        /// Let the subconscious ask the model which memories fit (a loop of
        /// calls before every trigger's words: slower; off, recall is by
        /// meaning, words and cues, as without a model).
        pub model_recall: bool = false, env("KIBITZ_LLM_MODEL_RECALL");
        /// The main agent's sampling: `{ temperature, max_tokens }`.
        pub main: RoleConfig = RoleConfig::new(0.7, 400), NONE;
        /// The subconscious's (with `model_recall`).
        pub subconscious: RoleConfig = RoleConfig::new(0.2, 300), NONE;
        /// A move brain's (`brain = "llm"` or a pipeline).
        pub moves: RoleConfig = RoleConfig::new(0.3, 256), NONE;
        /// Caps every role's `max_tokens` (unset: each role's own).
        #[serde(skip_serializing_if = "Option::is_none")]
        pub max_tokens: Option<u32> = None, env("KIBITZ_LLM_MAX_TOKENS");
    }
}

impl LlmConfig {
    /// Every endpoint in priority order: the `url` shorthand first.
    pub fn all_endpoints(&self) -> Vec<EndpointConfig> {
        let shorthand = self.url.as_ref().map(|url| EndpointConfig {
            name: "default".into(),
            kind: ApiKind::Openai,
            url: url.clone(),
            model: self.model.clone(),
            api_key_env: self.api_key.as_ref().map(|_| "KIBITZ_LLM_API_KEY".to_string()),
        });
        shorthand.into_iter().chain(self.endpoints.iter().cloned()).collect()
    }

    /// Caps every role's answer length at `max_tokens`, if set.
    pub(super) fn cap_tokens(&mut self) {
        let Some(max) = self.max_tokens else {
            return;
        };
        for role in [&mut self.main, &mut self.subconscious, &mut self.moves] {
            role.max_tokens = max;
        }
    }
}
