//! Test harness: runs the real `kibitz serve` binary on an ephemeral port
//! with a temporary data dir, the real models, personas and Stockfish.
#![allow(dead_code)]

pub mod cards;
pub mod club;
pub mod fake_llm;
pub mod lichess;
pub mod llama;
mod planted;
mod qdrant;
pub mod slow_llm;
mod watch;

// Each test binary uses some of these, none all of them.
#[allow(unused_imports)]
pub use planted::*;
#[allow(unused_imports)]
pub use qdrant::{drop_collection, skip_unless_embedded, test_qdrant};
pub use watch::*;

use qdrant::new_collection;

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};
use tempfile::TempDir;

/// The clone under test, read at run time: test binaries in a target dir shared between
/// clones must not reach into the clone that built them.
pub fn repo() -> PathBuf {
    PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into()))
}

pub struct Server {
    child: Option<Child>,
    pub base: String,
    pub port: u16,
    pub data: TempDir,
    env: Vec<(String, String)>,
    http: reqwest::Client,
    /// Bearer tokens of the players this test created, by player id.
    tokens: std::sync::Mutex<std::collections::HashMap<String, String>>,
    /// The player of each match this test created, by match id.
    owners: std::sync::Mutex<std::collections::HashMap<String, String>>,
    /// Where the server keeps its SQL: a SQLite file in the data dir, or a
    /// fresh PostgreSQL database when KIBITZ_TEST_POSTGRES names a cluster.
    pub database_url: String,
    /// Server stderr goes to `server.log` in the data dir instead of the console.
    capture_log: bool,
    /// With KIBITZ_TEST_QDRANT (`make test-scale`), this server's collection
    /// there, kept across its restarts.
    qdrant_collection: String,
}

/// The PostgreSQL cluster the suite runs against (admin URL), if any.
pub fn test_postgres() -> Option<String> {
    std::env::var("KIBITZ_TEST_POSTGRES").ok().filter(|u| !u.is_empty())
}

/// A new, empty database for one test server.
async fn fresh_database(data: &Path) -> String {
    match test_postgres() {
        Some(admin) => postgres_database(&admin).await,
        None => format!("sqlite://{}", data.join("kibitz.db").display()),
    }
}

/// Creates an empty database on the test cluster; returns its URL.
pub async fn postgres_database(admin: &str) -> String {
    use sqlx::Connection;
    let name = format!("kibitz_t_{}", uuid::Uuid::new_v4().simple());
    let mut conn = sqlx::PgConnection::connect(admin)
        .await
        .expect("test PostgreSQL reachable");
    sqlx::query(&format!("CREATE DATABASE {name}"))
        .execute(&mut conn)
        .await
        .unwrap();
    let (base, _) = admin.rsplit_once('/').expect("URL ends in /DATABASE");
    format!("{base}/{name}")
}

/// A port free now and never handed out before in this test process. The
/// OS can give the same ephemeral port to two binds in a row once the first
/// listener is closed; two servers of one test binary then raced for it,
/// the loser exited ("Address already in use"), and its test, whose health
/// check the winner had answered, talked to the other test's server.
/// The binary, run in `cwd` with the repository's models and personas and
/// quiet logs: a bench that starts a server of its own on a temp data dir.
pub fn kibitz_in(cwd: &Path) -> Command {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kibitz"));
    cmd.env("KIBITZ_MODELS_DIR", repo().join("models"))
        .env("KIBITZ_PERSONAS_DIR", repo().join("personas"))
        .env("RUST_LOG", "error")
        .current_dir(cwd);
    // `make test-qdrant`: the memories go to a Qdrant server, a collection each.
    if let Some(url) = test_qdrant() {
        cmd.env("KIBITZ_QDRANT_URL", url)
            .env("KIBITZ_QDRANT_COLLECTION", new_collection());
    }
    cmd
}

pub fn free_port() -> u16 {
    static GIVEN: std::sync::Mutex<Vec<u16>> = std::sync::Mutex::new(Vec::new());
    loop {
        let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
        let mut given = GIVEN.lock().unwrap();
        if !given.contains(&port) {
            given.push(port);
            return port;
        }
    }
}

impl Server {
    pub async fn start() -> Server {
        Server::start_with(&[]).await
    }

    pub async fn start_with(env: &[(&str, &str)]) -> Server {
        let data = tempfile::tempdir().unwrap();
        let database_url = fresh_database(data.path()).await;
        Server::start_in(data, database_url, env, false).await
    }

    /// A server alone on an existing database (a restored one), with a
    /// data dir of its own.
    pub async fn start_on(database_url: &str, env: &[(&str, &str)]) -> Server {
        let data = tempfile::tempdir().unwrap();
        Server::start_in(data, database_url.to_string(), env, false).await
    }

    /// One node of a cluster on `database_url`, which other nodes share
    /// (its KIBITZ_NODE_URL is its own address).
    pub async fn start_node(database_url: &str, env: &[(&str, &str)]) -> Server {
        let data = tempfile::tempdir().unwrap();
        Server::start_in(data, database_url.to_string(), env, true).await
    }

    async fn start_in(data: TempDir, database_url: String, env: &[(&str, &str)], node: bool) -> Server {
        let port = free_port();
        let mut env: Vec<(String, String)> = env.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect();
        if node {
            env.push(("KIBITZ_NODE_URL".into(), format!("http://127.0.0.1:{port}")));
        }
        let mut s = Server {
            database_url,
            child: None,
            base: format!("http://127.0.0.1:{port}"),
            port,
            data,
            env,
            http: reqwest::Client::new(),
            tokens: Default::default(),
            owners: Default::default(),
            capture_log: false,
            qdrant_collection: new_collection(),
        };
        s.launch().await;
        s
    }

    /// Like `start_with`, with the server's log kept for reading (`log_text`).
    pub async fn start_capturing_log(env: &[(&str, &str)]) -> Server {
        let mut s = Server::start_with(env).await;
        s.kill();
        s.capture_log = true;
        s.launch().await;
        s
    }

    pub fn log_text(&self) -> String {
        std::fs::read_to_string(self.data.path().join("server.log")).unwrap_or_default()
    }

    fn command(&self) -> Command {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_kibitz"));
        cmd.arg("serve")
            .env_remove("KIBITZ_CONFIG")
            .env_remove("ORT_DYLIB_PATH")
            .env("KIBITZ_LISTEN", format!("127.0.0.1:{}", self.port))
            .env("KIBITZ_DATA_DIR", self.data.path())
            .env("KIBITZ_DATABASE_URL", &self.database_url)
            .env("KIBITZ_MODELS_DIR", repo().join("models"))
            .env("KIBITZ_PERSONAS_DIR", repo().join("personas"))
            .env("KIBITZ_WEB_DIR", repo().join("web/dist"))
            .env("KIBITZ_ENGINE_MOVETIME_MS", "30")
            // Only the LLM a test names: never a developer's local Ollama.
            .env("KIBITZ_LLM_DETECT_OLLAMA", "false")
            .env_remove("KIBITZ_LLM_URL")
            .env("RUST_LOG", "warn,qdrant_edge=error,kibitz=info")
            // Every test client is 127.0.0.1: the per-address limits are
            // off unless a test sets them (tests/abuse.rs).
            .env("KIBITZ_REGISTRATIONS_PER_HOUR", "0")
            .env("KIBITZ_REQUESTS_PER_MINUTE_PER_ADDRESS", "0")
            // Tests run side by side on a small machine: a new match is
            // never refused as busy unless a test asks (tests/overload.rs).
            .env("KIBITZ_BUSY_ENGINE_WAIT_MS", "0")
            .env("KIBITZ_BUSY_LAG_MS", "0")
            .env("KIBITZ_BUSY_MOVE_REPLY_MS", "0")
            .env("KIBITZ_BUSY_COMMIT_WAIT_MS", "0")
            .current_dir(self.data.path())
            .envs(
                test_qdrant()
                    .map(|url| {
                        [
                            ("KIBITZ_QDRANT_URL".to_string(), url),
                            ("KIBITZ_QDRANT_COLLECTION".to_string(), self.qdrant_collection.clone()),
                        ]
                    })
                    .into_iter()
                    .flatten(),
            )
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        for (k, v) in &self.env {
            cmd.env(k, v);
        }
        if self.capture_log {
            let log = std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(self.data.path().join("server.log"))
                .unwrap();
            cmd.stderr(log);
        }
        cmd
    }

    pub async fn launch(&mut self) {
        self.child = Some(self.command().spawn().expect("kibitz binary starts"));
        let deadline = Instant::now() + Duration::from_secs(60);
        while Instant::now() < deadline {
            let health = self.http.get(format!("{}/api/health", self.base)).send().await;
            if health.is_ok_and(|r| r.status().is_success()) {
                return;
            }
            if let Some(status) = self.child.as_mut().unwrap().try_wait().unwrap() {
                panic!("kibitz exited during start-up: {status}");
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        panic!("kibitz did not answer /api/health within 60 s");
    }

    /// SIGTERM, as a service manager stops it; the exit status.
    pub fn stop(&mut self) -> std::process::ExitStatus {
        let mut child = self.child.take().expect("the server runs");
        let term = Command::new("kill").args(["-TERM", &child.id().to_string()]).status();
        assert!(term.unwrap().success(), "kill -TERM");
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(status) = child.try_wait().unwrap() {
                return status;
            }
            if Instant::now() > deadline {
                let _ = child.kill();
                panic!("kibitz did not stop within 30 s of SIGTERM");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// SIGKILL: no shutdown code runs, as in a crash.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            child.kill().unwrap();
            child.wait().unwrap();
        }
    }

    /// The token of the player a request acts for, as the web client sends
    /// it: the owner of the match or player in the path, or the `player_id`
    /// of a new match. Tests of other callers use `send_as`.
    fn owner_token(&self, path: &str, body: Option<&Value>) -> Option<String> {
        let mut parts = path.split(['/', '?']).skip(2);
        let player = match (parts.next(), parts.next()) {
            (Some("matches"), Some(m)) => self.owners.lock().unwrap().get(m).cloned(),
            (Some("players"), Some(p)) => Some(p.to_string()),
            (Some("matches"), None) => body.and_then(|b| b["player_id"].as_str()).map(str::to_string),
            _ => None,
        }?;
        self.tokens.lock().unwrap().get(&player).cloned()
    }

    fn request(&self, method: reqwest::Method, path: &str, body: Option<&Value>) -> reqwest::RequestBuilder {
        let req = self.http.request(method, format!("{}{path}", self.base));
        match self.owner_token(path, body) {
            Some(token) => req.bearer_auth(token),
            None => req,
        }
    }

    pub async fn get(&self, path: &str) -> (u16, Value) {
        let r = self.request(reqwest::Method::GET, path, None).send().await.unwrap();
        status_json(r).await
    }

    pub async fn post(&self, path: &str, body: Value) -> (u16, Value) {
        let r = self
            .request(reqwest::Method::POST, path, Some(&body))
            .json(&body)
            .send();
        let (status, out) = status_json(r.await.unwrap()).await;
        if path == "/api/matches" && status == 201 {
            let state = &out["state"];
            let (m, p) = (state["id"].as_str().unwrap(), state["player_id"].as_str().unwrap());
            self.owners.lock().unwrap().insert(m.to_string(), p.to_string());
        }
        (status, out)
    }

    pub async fn post_raw(&self, path: &str, body: &str) -> (u16, Value) {
        let r = self
            .request(reqwest::Method::POST, path, None)
            .header("content-type", "application/json")
            .body(body.to_string())
            .send()
            .await
            .unwrap();
        status_json(r).await
    }

    pub async fn text(&self, path: &str) -> (u16, String) {
        let r = self.request(reqwest::Method::GET, path, None).send().await.unwrap();
        (r.status().as_u16(), r.text().await.unwrap())
    }

    pub async fn new_player(&self, name: &str) -> String {
        let (status, p) = self.post("/api/players", json!({ "name": name })).await;
        assert_eq!(status, 201, "{p}");
        let id = p["id"].as_str().unwrap().to_string();
        self.tokens.lock().unwrap().insert(
            id.clone(),
            p["token"].as_str().expect("a token at creation").to_string(),
        );
        id
    }

    pub fn token(&self, player: &str) -> String {
        self.tokens.lock().unwrap()[player].clone()
    }

    /// Lets this server's requests act as the players and matches `other`
    /// made (another node of the same club).
    pub fn know_as(&self, other: &Server) {
        if std::ptr::eq(self, other) {
            return;
        }
        self.tokens.lock().unwrap().extend(other.tokens.lock().unwrap().clone());
        self.owners.lock().unwrap().extend(other.owners.lock().unwrap().clone());
    }

    /// The player's chat line in match `m`, taken (200).
    pub async fn say(&self, m: &str, text: &str) {
        let (status, body) = self
            .post(&format!("/api/matches/{m}/chat"), json!({ "text": text }))
            .await;
        assert_eq!(status, 200, "chat {text:?}: {body}");
    }

    /// The player resigns match `m` (200).
    pub async fn resign(&self, m: &str) {
        let (status, body) = self.post(&format!("/api/matches/{m}/resign"), json!({})).await;
        assert_eq!(status, 200, "resign: {body}");
    }

    /// A request with a bearer token (None: without Authorization).
    pub async fn send_as(
        &self,
        method: reqwest::Method,
        path: &str,
        token: Option<&str>,
        body: Option<Value>,
    ) -> (u16, Value) {
        let mut req = self.http.request(method, format!("{}{path}", self.base));
        if let Some(t) = token {
            req = req.bearer_auth(t);
        }
        if let Some(b) = body {
            req = req.json(&b);
        }
        status_json(req.send().await.unwrap()).await
    }

    /// A GET's status, content type and body as text, with a bearer token.
    pub async fn text_as(&self, path: &str, token: &str) -> (u16, String, String) {
        let r = self
            .http
            .get(format!("{}{path}", self.base))
            .bearer_auth(token)
            .send()
            .await
            .unwrap();
        let kind = r
            .headers()
            .get("content-type")
            .map(|v| v.to_str().unwrap_or_default().to_string())
            .unwrap_or_default();
        (r.status().as_u16(), kind, r.text().await.unwrap())
    }

    pub async fn get_as(&self, path: &str, token: &str) -> (u16, Value) {
        self.send_as(reqwest::Method::GET, path, Some(token), None).await
    }

    /// The player's memories, read with the player's own token.
    pub async fn memories(&self, player: &str) -> Vec<Value> {
        let (status, list) = self
            .get_as(&format!("/api/players/{player}/memories"), &self.token(player))
            .await;
        assert_eq!(status, 200, "{list}");
        list.as_array().unwrap().clone()
    }

    /// What the player's memories say.
    pub async fn memory_texts(&self, player: &str) -> Vec<String> {
        let memories = self.memories(player).await;
        memories
            .iter()
            .map(|m| m["content"].as_str().unwrap_or_default().to_string())
            .collect()
    }

    /// Creates a match; returns (match id, the creation outcome).
    pub async fn new_match(&self, player: &str, persona: &str, color: &str) -> (String, Value) {
        let body = json!({ "player_id": player, "persona_id": persona, "color": color });
        let (status, out) = self.post("/api/matches", body).await;
        assert_eq!(status, 201, "{out}");
        (out["state"]["id"].as_str().unwrap().to_string(), out)
    }

    /// A new match from a set-up position: its id.
    pub async fn new_match_at(&self, player: &str, persona: &str, color: &str, fen: &str) -> String {
        let body = json!({ "player_id": player, "persona_id": persona, "color": color, "fen": fen });
        let (status, out) = self.post("/api/matches", body).await;
        assert_eq!(status, 201, "{out}");
        out["state"]["id"].as_str().unwrap().to_string()
    }

    /// The player's move in match `m`, taken (200).
    pub async fn play_move(&self, m: &str, mv: &str) -> Value {
        let (status, out) = self
            .post(&format!("/api/matches/{m}/moves"), json!({ "move": mv }))
            .await;
        assert_eq!(status, 200, "{mv}: {out}");
        out
    }

    pub async fn triggers(&self, m: &str) -> Vec<Value> {
        let (status, t) = self.get(&format!("/api/matches/{m}/triggers")).await;
        assert_eq!(status, 200, "{t}");
        t.as_array().unwrap().clone()
    }

    /// Every event of match `m`, page after page.
    pub async fn events(&self, m: &str) -> Vec<Value> {
        let mut events = Vec::new();
        loop {
            let since = events.last().and_then(|e: &Value| e["seq"].as_i64()).unwrap_or(0);
            let (status, e) = self.get(&format!("/api/matches/{m}/events?since={since}")).await;
            assert_eq!(status, 200, "{e}");
            let page = e.as_array().unwrap().clone();
            page.iter().for_each(|e| drop(watch::typed_event(e)));
            let done = page.len() < 1000;
            events.extend(page);
            if done {
                return events;
            }
        }
    }

    pub fn ws_url(&self, m: &str, since: i64) -> String {
        format!("ws://127.0.0.1:{}/api/matches/{m}/ws?since={since}", self.port)
    }

    /// A WebSocket on match `m` as its player, token in the subprotocol as a
    /// browser sends it.
    pub async fn ws(&self, m: &str, since: i64) -> Ws {
        let owner = self.owners.lock().unwrap()[m].clone();
        let token = self.token(&owner);
        ws_connect_as(&self.ws_url(m, since), &token)
            .await
            .expect("websocket connects")
    }

    /// Runs `kibitz ARGS` on this server's data dir and personas; (success, stdout, stderr).
    pub fn run_cli(&self, args: &[&str]) -> (bool, String, String) {
        let out = Command::new(env!("CARGO_BIN_EXE_kibitz"))
            .args(args)
            .env("KIBITZ_DATA_DIR", self.data_path())
            .env("KIBITZ_DATABASE_URL", &self.database_url)
            .env("KIBITZ_MODELS_DIR", repo().join("models"))
            .env("KIBITZ_PERSONAS_DIR", repo().join("personas"))
            // The server's own personas folder, if it was given one.
            .envs(self.env.iter().filter(|(k, _)| k == "KIBITZ_PERSONAS_DIR").cloned())
            .env("KIBITZ_LISTEN", "127.0.0.1:0")
            .env("RUST_LOG", "error")
            .env_remove("RUST_BACKTRACE")
            .env_remove("ORT_DYLIB_PATH")
            .output()
            .unwrap();
        let text = |b: Vec<u8>| String::from_utf8_lossy(&b).to_string();
        (out.status.success(), text(out.stdout), text(out.stderr))
    }

    /// The server process's id, while it runs.
    pub fn pid(&self) -> Option<u32> {
        self.child.as_ref().map(Child::id)
    }

    /// Its collection on the suite's Qdrant server, when there is one.
    pub fn qdrant_collection(&self) -> &str {
        &self.qdrant_collection
    }

    pub fn data_path(&self) -> &Path {
        self.data.path()
    }

    /// A direct connection to the server's SQL, for tests that must reach
    /// under the API (ageing rows, checking what is stored). `$n` placeholders.
    pub async fn sql(&self) -> sqlx::AnyPool {
        sqlx::any::install_default_drivers();
        sqlx::AnyPool::connect(&self.database_url).await.unwrap()
    }

    pub fn on_postgres(&self) -> bool {
        self.database_url.starts_with("postgres")
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.kill();
        // Its own collection only: a club's nodes share theirs (`club.rs`).
        let shared = self.env.iter().any(|(k, _)| k == "KIBITZ_QDRANT_COLLECTION");
        if let (Some(url), false) = (test_qdrant(), shared) {
            drop_collection(&url, &self.qdrant_collection);
        }
    }
}

async fn status_json(r: reqwest::Response) -> (u16, Value) {
    let status = r.status().as_u16();
    let text = r.text().await.unwrap();
    if text.is_empty() {
        return (status, Value::Null); // 204
    }
    // Text answers (PGN) come back as a JSON string.
    let value = serde_json::from_str(&text).unwrap_or(Value::String(text));
    (status, value)
}
