//! `[llm]`: the language models the agents and LLM move brains use. Endpoints
//! are tried in priority order (a preflight picks the first that answers; a
//! match fails over one way to the next), each role has its own sampling.

use serde::{Deserialize, Serialize};

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

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LlmConfig {
    /// Shorthand for one OpenAI-compatible endpoint, tried first.
    #[serde(serialize_with = "super::redact::opt_url")]
    pub url: Option<String>,
    pub model: String,
    /// From KIBITZ_LLM_API_KEY only; never written or logged.
    #[serde(skip)]
    pub api_key: Option<String>,
    /// More endpoints, in priority order.
    pub endpoints: Vec<EndpointConfig>,
    /// Per call.
    pub timeout_secs: u64,
    /// The first call of a match may wait this long (a cold model loading).
    pub first_timeout_secs: u64,
    /// How long the start-of-match check waits for each endpoint.
    pub preflight_ms: u64,
    /// With no endpoint configured, use a local Ollama if one answers on 127.0.0.1:11434.
    pub detect_ollama: bool,
    /// How long the persona's words in a game may take the model before the
    /// scripted voice speaks instead (its move never waits for them).
    pub words_deadline_ms: u64,
    /// The same for an answer to a chat line.
    pub chat_deadline_ms: u64,
    /// Let the subconscious ask the model which memories fit (a loop of
    /// calls before every trigger's words: slower; off, recall is by
    /// meaning, words and cues, as without a model).
    pub model_recall: bool,
    pub main: RoleConfig,
    pub subconscious: RoleConfig,
    pub moves: RoleConfig,
}

impl Default for LlmConfig {
    fn default() -> Self {
        LlmConfig {
            url: None,
            model: "default".into(),
            api_key: None,
            endpoints: Vec::new(),
            timeout_secs: 30,
            first_timeout_secs: 120,
            preflight_ms: 1500,
            detect_ollama: true,
            words_deadline_ms: 3000,
            chat_deadline_ms: 20_000,
            model_recall: false,
            main: RoleConfig {
                temperature: 0.7,
                max_tokens: 400,
            },
            subconscious: RoleConfig {
                temperature: 0.2,
                max_tokens: 300,
            },
            moves: RoleConfig {
                temperature: 0.3,
                max_tokens: 256,
            },
        }
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

    /// Caps every role's answer length (KIBITZ_LLM_MAX_TOKENS).
    pub fn cap_tokens(&mut self, max: u32) {
        for role in [&mut self.main, &mut self.subconscious, &mut self.moves] {
            role.max_tokens = max;
        }
    }
}
