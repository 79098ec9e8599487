//! A fake Lichess for the bot tests: no Lichess server can run here, so this
//! one speaks its wire format (NDJSON streams with keep-alive lines, form
//! posts, the documented status codes, OAuth2 with PKCE), and checks every
//! message it sends or receives against the official OpenAPI specification
//! (`spec.rs`). The test plays the human side through its methods.

mod routes;
mod spec;
mod world;

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::Value;

pub use spec::Spec;
pub use world::{Logged, World};

use super::Server;

/// The token of Viktor's BOT account on the fake.
pub const TOKEN: &str = "lip_viktorbot";

pub struct FakeLichess {
    pub base: String,
    world: Arc<Mutex<World>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for FakeLichess {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A game as the test reads it.
#[derive(Debug, Clone)]
pub struct GameView {
    pub moves: Vec<String>,
    pub status: String,
    pub winner: Option<String>,
    /// (room, user, text) in order.
    pub chat: Vec<(String, String, String)>,
    pub wtime: i64,
    pub btime: i64,
}

impl FakeLichess {
    pub async fn start() -> FakeLichess {
        let world = Arc::new(Mutex::new(World::new(Spec::load())));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let app = routes::router(world.clone());
        let task = tokio::spawn(async move {
            axum::serve(listener, app).await.unwrap();
        });
        FakeLichess { base, world, task }
    }

    pub fn with<T>(&self, f: impl FnOnce(&mut World) -> T) -> T {
        f(&mut self.world.lock().unwrap())
    }

    /// A server whose persona Viktor plays here as `viktor-bot`, with
    /// `toml` added to its configuration file (kept in the returned dir).
    pub async fn viktor_server(&self, extra: &[(&str, &str)], toml: &str) -> (Server, tempfile::TempDir) {
        self.server_for(&[("viktor", TOKEN, "viktor-bot", "Viktor-Bot")], extra, toml)
            .await
    }

    /// A server on which each (persona, token, bot id, bot name) plays here.
    pub async fn server_for(
        &self,
        bots: &[(&str, &str, &str, &str)],
        extra: &[(&str, &str)],
        toml: &str,
    ) -> (Server, tempfile::TempDir) {
        let mut accounts = String::new();
        let mut tokens = Vec::new();
        for (n, (persona, token, id, name)) in bots.iter().enumerate() {
            self.add_bot(token, id, name);
            let var = format!("KIBITZ_TEST_LICHESS_TOKEN_{n}");
            accounts.push_str(&format!(
                "[[lichess.accounts]]\npersona = \"{persona}\"\ntoken_env = \"{var}\"\n"
            ));
            tokens.push((var, token.to_string()));
        }
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("kibitz.toml");
        std::fs::write(&config, format!("{accounts}{toml}")).unwrap();
        let mut env = vec![
            ("KIBITZ_CONFIG", config.to_str().unwrap()),
            ("KIBITZ_LICHESS_URL", self.base.as_str()),
            ("KIBITZ_LICHESS_RECONNECT_MAX_SECS", "1"),
            ("KIBITZ_LICHESS_RATE_LIMIT_WAIT_SECS", "2"),
            // No nudges while the human side of a test "thinks".
            ("KIBITZ_IDLE_TIME_SCALE", "100"),
        ];
        env.extend(tokens.iter().map(|(k, v)| (k.as_str(), v.as_str())));
        env.extend_from_slice(extra);
        let server = Server::start_with(&env).await;
        (server, dir)
    }

    /// Ann challenges Viktor, plays e4, tells him of her bees and resigns
    /// once he has answered; the game's id, once its match has ended.
    pub async fn ann_tells_of_her_bees_and_resigns(&self) -> String {
        let challenge = self.challenge("ann", "viktor-bot", 600, 5, false, "white");
        let id = challenge.clone();
        self.wait_for(30, "the game", move |w| w.games.values().any(|g| g.challenge == id))
            .await;
        let game = self.game_of(&challenge).unwrap();
        self.human_move(&game, "e2e4").unwrap();
        let g = game.clone();
        self.wait_for(60, "the reply", move |w| w.games[&g].moves.len() >= 2)
            .await;
        let said = self.game(&game).chat.len();
        self.human_chat(&game, "I keep bees on my roof in Ghent, forty thousand of them");
        let g = game.clone();
        self.wait_for(60, "the answer", move |w| w.games[&g].chat.len() > said + 1)
            .await;
        self.human_resigns(&game);
        let g = game.clone();
        self.wait_for(60, "the end", move |w| {
            w.games[&g].chat.iter().any(|(_, _, t)| t.contains("Head to head"))
        })
        .await;
        game
    }

    /// A BOT account that plays with `token`.
    pub fn add_bot(&self, token: &str, id: &str, name: &str) {
        self.with(|w| w.add_user(Some(token), id, name, Some("BOT"), 2000));
    }

    /// A person on Lichess, who signs in with OAuth when asked.
    pub fn add_human(&self, id: &str, name: &str, rating: u32) {
        self.with(|w| w.add_user(None, id, name, None, rating));
    }

    /// `from` challenges the bot `to`: `limit`+`increment` seconds.
    pub fn challenge(&self, from: &str, to: &str, limit: u32, increment: u32, rated: bool, color: &str) -> String {
        self.with(|w| w.challenge(from, to, serde_json::json!({"type": "clock", "limit": limit, "increment": increment, "show": format!("{}+{increment}", limit / 60)}), rated, "standard", color))
    }

    pub fn challenge_with(&self, from: &str, to: &str, time_control: Value, rated: bool, variant: &str) -> String {
        self.with(|w| w.challenge(from, to, time_control, rated, variant, "random"))
    }

    /// The challenge's status and, if declined, the reason given.
    pub fn challenge_status(&self, id: &str) -> (String, Option<String>) {
        self.with(|w| w.challenge_status(id))
    }

    pub fn game_of(&self, challenge: &str) -> Option<String> {
        self.with(|w| w.game_of(challenge))
    }

    pub fn game(&self, id: &str) -> GameView {
        self.with(|w| w.view(id))
    }

    /// The human side plays `uci` in game `id`.
    pub fn human_move(&self, id: &str, uci: &str) -> Result<(), String> {
        self.with(|w| w.human_move(id, uci))
    }

    pub fn human_chat(&self, id: &str, text: &str) {
        self.with(|w| w.human_chat(id, text));
    }

    pub fn human_offers_draw(&self, id: &str) {
        self.with(|w| w.human_offers_draw(id));
    }

    pub fn human_proposes_takeback(&self, id: &str) {
        self.with(|w| w.human_proposes_takeback(id));
    }

    pub fn human_leaves(&self, id: &str, secs: u32) {
        self.with(|w| w.human_leaves(id, secs));
    }

    pub fn human_resigns(&self, id: &str) {
        self.with(|w| w.human_resigns(id));
    }

    /// Closes every open stream of the game (as a network drop would).
    pub fn drop_game_streams(&self, id: &str) {
        self.with(|w| w.drop_game_streams(id));
    }

    pub fn drop_event_streams(&self) {
        self.with(|w| w.drop_event_streams());
    }

    /// The next `n` requests whose path starts with `prefix` get a 429.
    pub fn rate_limit(&self, prefix: &str, n: u32) {
        self.with(|w| w.rate_limits.push((prefix.to_string(), n)));
    }

    /// The person the next OAuth authorization signs in as.
    pub fn sign_in_as(&self, id: &str) {
        self.with(|w| w.signing_in = Some(id.to_string()));
    }

    pub fn requests(&self) -> Vec<Logged> {
        self.with(|w| w.log.clone())
    }

    /// Messages that did not match the specification.
    pub fn violations(&self) -> Vec<String> {
        self.with(|w| w.violations.clone())
    }

    /// Waits until `f` holds of the world, or panics after `secs` saying `what`.
    pub async fn wait_for(&self, secs: u64, what: &str, f: impl Fn(&World) -> bool) {
        let deadline = Instant::now() + Duration::from_secs(secs);
        loop {
            if self.with(|w| f(w)) {
                return;
            }
            assert!(
                Instant::now() < deadline,
                "waited {secs} s for {what}; requests: {:#?}",
                self.requests().iter().rev().take(15).collect::<Vec<_>>()
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }
}
