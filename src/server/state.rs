//! The router's state and the parts a handler may ask for. A handler names
//! what it uses (`State<Db>`, `State<MemoryService>`, `State<Runtime>`,
//! `State<Arc<RateLimits>>`, ...) through axum's `FromRef`, so what it can
//! reach is in its signature rather than behind one locator.

use std::sync::Arc;

use axum::extract::FromRef;

use super::forward::Relay;
use super::limits::RateLimits;
use super::sockets::Sockets;
use super::ws::SocketParts;
use crate::config::Config;
use crate::memory::MemoryService;
use crate::runtime::Runtime;
use crate::store::Db;

#[derive(Clone)]
pub struct AppState {
    runtime: Runtime,
    db: Db,
    memory: MemoryService,
    config: Arc<Config>,
    limits: Arc<RateLimits>,
    sockets: Arc<Sockets>,
    /// Relays a match's requests to the node that holds it (`forward.rs`).
    relay: Arc<Relay>,
}

impl AppState {
    pub fn new(runtime: Runtime) -> AppState {
        let shared = runtime.shared();
        AppState {
            limits: Arc::new(RateLimits::new(&shared.config)),
            relay: Arc::new(Relay::new(
                shared.config.cluster.secret.as_deref(),
                std::time::Duration::from_secs_f64(shared.config.ws_ping_secs),
            )),
            sockets: Arc::default(),
            db: shared.db,
            memory: shared.memory,
            config: shared.config,
            runtime,
        }
    }
}

/// Each part of the state is a sub-state a handler may extract alone.
macro_rules! sub_states {
    ($($field:ident: $part:ty),* $(,)?) => {
        $(impl FromRef<AppState> for $part {
            fn from_ref(app: &AppState) -> $part {
                app.$field.clone()
            }
        })*
    };
}

impl FromRef<AppState> for SocketParts {
    fn from_ref(app: &AppState) -> SocketParts {
        SocketParts::new(
            app.runtime.clone(),
            app.db.clone(),
            app.config.clone(),
            app.limits.clone(),
            app.sockets.clone(),
        )
    }
}

sub_states!(
    runtime: Runtime,
    db: Db,
    memory: MemoryService,
    config: Arc<Config>,
    limits: Arc<RateLimits>,
    sockets: Arc<Sockets>,
    relay: Arc<Relay>,
);
