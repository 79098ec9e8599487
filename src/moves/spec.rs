//! Who plays a side in self-play, as the command line spells it:
//! `engine:1500` (Stockfish at that Elo), `persona:margot` (a persona's card:
//! its Elo, style and brain), `random`, `llm`, `pipeline:p+e+pl+m`.

use std::str::FromStr;
use std::sync::Arc;

use super::{EngineBrain, LlmBrain, LlmBrainConfig, MoveBrain, PipelineBrain, PipelineConfig, RandomBrain};
use crate::chess::engine::{Engine, SearchBudget, Style};
use crate::config::RoleConfig;
use crate::llm::{ChatModel, LlmPool};
use crate::personas::{BrainKind, Persona};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BrainSpec {
    Engine { elo: u32 },
    Persona { id: String },
    Random,
    Llm,
    Pipeline { agents: String },
}

#[derive(Debug, thiserror::Error)]
#[error("bad player spec {spec:?}: {why} (engine:<elo>, persona:<id>, random, llm, pipeline:<p+e+pl+m>)")]
pub struct SpecError {
    spec: String,
    why: String,
}

impl FromStr for BrainSpec {
    type Err = SpecError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let err = |why: &str| SpecError {
            spec: s.to_string(),
            why: why.to_string(),
        };
        let (kind, arg) = s.split_once(':').map_or((s, None), |(k, a)| (k, Some(a)));
        match (kind, arg) {
            ("engine", Some(elo)) => {
                let elo = elo.parse().map_err(|_| err("the Elo must be a number"))?;
                if !(100..=3500).contains(&elo) {
                    return Err(err("the Elo must be between 100 and 3500"));
                }
                Ok(BrainSpec::Engine { elo })
            }
            ("engine", None) => Err(err("engine needs an Elo")),
            ("persona", Some(id)) if !id.is_empty() => Ok(BrainSpec::Persona { id: id.to_string() }),
            ("persona", _) => Err(err("persona needs an id")),
            ("random", None) => Ok(BrainSpec::Random),
            ("llm", None) => Ok(BrainSpec::Llm),
            ("pipeline", agents) => Ok(BrainSpec::Pipeline {
                agents: agents.unwrap_or("p+e+pl+m").to_string(),
            }),
            _ => Err(err("unknown kind")),
        }
    }
}

/// What a brain is built from: the engine pool, the language models (if any
/// are configured) and the engine's time per move.
#[derive(Clone)]
pub struct Workshop {
    pub engine: Arc<dyn Engine>,
    pub llm: Option<LlmPool>,
    pub budget: SearchBudget,
    /// Sampling for move brains.
    pub sampling: RoleConfig,
}

impl Workshop {
    /// The brain a persona's card asks for. An LLM brain without a configured
    /// model becomes the engine brain (and says so), so a game always starts.
    pub fn persona_brain(&self, persona: &Persona, match_id: Option<String>) -> Box<dyn MoveBrain> {
        let engine = EngineBrain::new(self.engine.clone(), persona.elo, persona.style, self.budget);
        let llm = self.session(match_id);
        match (&persona.brain, &llm) {
            (BrainKind::Engine, _) => Box::new(engine),
            (BrainKind::Llm, Some(llm)) => Box::new(LlmBrain::new(llm.clone(), engine, self.llm_config())),
            (BrainKind::Pipeline(agents), Some(llm)) => {
                let config = PipelineConfig::parse(agents).unwrap_or_default();
                Box::new(PipelineBrain::new(llm.clone(), engine, self.pipeline_config(config)))
            }
            (kind, None) => {
                tracing::warn!(persona = %persona.id, "brain {kind:?} needs an LLM ([llm]); the engine plays instead");
                Box::new(engine)
            }
        }
    }

    /// A move-brain session on the LLM endpoints, if there are any.
    fn session(&self, match_id: Option<String>) -> Option<Arc<dyn ChatModel>> {
        let pool = self.llm.as_ref()?;
        Some(pool.session(match_id, "moves", self.sampling) as Arc<dyn ChatModel>)
    }

    fn llm_config(&self) -> LlmBrainConfig {
        LlmBrainConfig {
            temperature: self.sampling.temperature,
            max_tokens: self.sampling.max_tokens,
            ..LlmBrainConfig::default()
        }
    }

    fn pipeline_config(&self, agents: PipelineConfig) -> PipelineConfig {
        PipelineConfig {
            temperature: self.sampling.temperature,
            max_tokens: self.sampling.max_tokens.max(64),
            ..agents
        }
    }

    /// The brain a self-play spec names; `personas` resolves `persona:<id>`.
    pub fn spec_brain(&self, spec: &BrainSpec, personas: &[Arc<Persona>]) -> Result<Box<dyn MoveBrain>, SpecError> {
        let err = |why: String| SpecError {
            spec: format!("{spec:?}"),
            why,
        };
        let need_llm = || {
            self.session(None)
                .ok_or_else(|| err("no LLM configured (set llm.url or KIBITZ_LLM_URL)".into()))
        };
        let strong = || EngineBrain::new(self.engine.clone(), 1500, Style::Positional, self.budget);
        Ok(match spec {
            BrainSpec::Engine { elo } => Box::new(EngineBrain::new(
                self.engine.clone(),
                *elo,
                Style::Positional,
                self.budget,
            )),
            BrainSpec::Persona { id } => {
                let persona = personas
                    .iter()
                    .find(|p| p.id == id.as_str())
                    .ok_or_else(|| err(format!("no persona {id:?}")))?;
                self.persona_brain(persona, None)
            }
            BrainSpec::Random => Box::new(RandomBrain),
            BrainSpec::Llm => Box::new(LlmBrain::new(need_llm()?, strong(), self.llm_config())),
            BrainSpec::Pipeline { agents } => {
                let config = PipelineConfig::parse(agents).map_err(err)?;
                Box::new(PipelineBrain::new(need_llm()?, strong(), self.pipeline_config(config)))
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn specs_parse_and_bad_ones_explain() {
        assert_eq!(
            "engine:1500".parse::<BrainSpec>().unwrap(),
            BrainSpec::Engine { elo: 1500 }
        );
        assert_eq!(
            "persona:pip".parse::<BrainSpec>().unwrap(),
            BrainSpec::Persona { id: "pip".into() }
        );
        assert_eq!(
            "pipeline".parse::<BrainSpec>().unwrap(),
            BrainSpec::Pipeline {
                agents: "p+e+pl+m".into()
            }
        );
        assert!(
            "engine:lots"
                .parse::<BrainSpec>()
                .unwrap_err()
                .to_string()
                .contains("number")
        );
        assert!(
            "stockfish"
                .parse::<BrainSpec>()
                .unwrap_err()
                .to_string()
                .contains("unknown kind")
        );
    }
}
