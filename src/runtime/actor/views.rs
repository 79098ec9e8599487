//! What a match looks like from outside the actor: the game context its
//! triggers see, and the state view a client is answered with.

use super::MatchActor;
use crate::runtime::state::{MatchState, Serving, StateParts};
use crate::triggers::{ContextParts, GameContext};

impl MatchActor {
    pub(super) fn context(&self) -> GameContext {
        let parts = ContextParts {
            match_id: self.id,
            player_id: self.player.id,
            player_name: &self.player.name,
            persona_id: &self.persona.id,
            persona_elo: self.persona.elo,
            user_color: self.table.user(),
            started_at: self.started_at,
            history: &self.history,
            odds: self.odds.all(),
        };
        let mut ctx = GameContext::build(parts, self.table.game());
        ctx.said = self.voice.said();
        ctx.talk = self.voice.mode();
        ctx.user_think_secs = self.table.last_think().map(|d| d.num_milliseconds() as f64 / 1000.0);
        ctx.player_local_time = self.utc_offset_minutes.map(|m| {
            let local = ctx.now + chrono::Duration::minutes(i64::from(m));
            format!("{} (UTC{:+03}:{:02})", local.format("%A %H:%M"), m / 60, (m % 60).abs())
        });
        ctx
    }

    pub(super) fn state(&self) -> MatchState {
        let parts = StateParts {
            id: self.id,
            player_id: self.player.id,
            player_name: &self.player.name,
            persona_id: &self.persona.id,
            persona_name: &self.persona.name,
            persona_elo: self.persona.elo,
            user_color: self.table.user(),
            date: self.started_at,
            emotion: self.voice.emotion(),
            draw_offer: self.table.draw_offer().map(|side| side.as_str()),
            last_seq: self.emitter.last_seq(),
            odds: self.odds.all(),
            notes: self.table.notes(),
            talk: self.voice.mode(),
        };
        let mut state = MatchState::build(parts, self.table.game());
        let serving = self.agent_llm.as_ref().and_then(|s| s.serving());
        state.serving = Some(Serving {
            agent: if self.agent_llm.is_some() { "llm" } else { "scripted" },
            moves: self.brain.name(),
            llm_endpoint: serving.as_ref().map(|(e, _)| e.clone()),
            llm_model: serving.map(|(_, m)| m),
        });
        state
    }
}
