//! The server a load benchmark runs against: the real `kibitz serve`, started
//! as a child process on a temp data dir (killed on drop), or one already
//! running at a URL.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

use kibitz::config::Config;

pub struct LiveServer {
    pub base: String,
    /// The started server's admin token (a remote server's is not known).
    pub admin_token: Option<String>,
    child: Option<Child>,
    _data: Option<tempfile::TempDir>,
}

impl LiveServer {
    pub fn remote(url: &str) -> LiveServer {
        LiveServer {
            base: url.trim_end_matches('/').to_string(),
            admin_token: None,
            child: None,
            _data: None,
        }
    }

    /// `kibitz serve` on a free loopback port with a fresh data dir (its
    /// SQL there too unless `env` names another); `member`: one node of
    /// several (its own address as its KIBITZ_NODE_URL).
    pub async fn spawn(
        config: &Config,
        idle_scale: f64,
        env: &[(&str, String)],
        member: bool,
    ) -> anyhow::Result<LiveServer> {
        let data = tempfile::tempdir()?;
        let port = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?.port();
        let admin_token = format!("bench-admin-{:016x}", rand::random::<u64>());
        // The bench's own effective configuration (its --config included);
        // the variables below override its places and ports.
        let config_file = data.path().join("kibitz.toml");
        std::fs::write(&config_file, config.to_toml()).context("writing the server's configuration")?;
        let mut command = Command::new(std::env::current_exe()?);
        command
            .arg("serve")
            .env("KIBITZ_CONFIG", &config_file)
            .env("KIBITZ_ADMIN_TOKEN", &admin_token)
            .env("KIBITZ_LISTEN", format!("127.0.0.1:{port}"))
            // Every place derived from the data dir is named: the written
            // configuration holds the bench's own derived paths (a shared
            // `data/vectors` would carry one run's index into the next).
            .env("KIBITZ_DATA_DIR", data.path())
            .env(
                "KIBITZ_DATABASE_URL",
                format!("sqlite://{}", data.path().join("kibitz.db").display()),
            )
            .env("KIBITZ_VECTORS_DIR", data.path().join("vectors"))
            .env("KIBITZ_MODELS_DIR", &config.models_dir)
            .env("KIBITZ_PERSONAS_DIR", &config.personas_dir)
            .env("KIBITZ_IDLE_TIME_SCALE", idle_scale.to_string())
            // The load is the point here, not the limiter.
            .env("KIBITZ_CHAT_PER_MINUTE", "1000000")
            // Thousands of players from one address: no per-address limits.
            .env("KIBITZ_REGISTRATIONS_PER_HOUR", "0")
            .env("KIBITZ_REQUESTS_PER_MINUTE_PER_ADDRESS", "0")
            .env("KIBITZ_REQUESTS_PER_MINUTE_PER_TOKEN", "0")
            .env("RUST_LOG", "warn,qdrant_edge=error")
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdout(Stdio::null())
            .stderr(Stdio::inherit());
        if member {
            command.env("KIBITZ_NODE_URL", format!("http://127.0.0.1:{port}"));
        }
        let child = command.spawn().context("starting kibitz serve")?;
        let server = LiveServer {
            base: format!("http://127.0.0.1:{port}"),
            admin_token: Some(admin_token),
            child: Some(child),
            _data: Some(data),
        };
        server.wait_healthy().await?;
        server.wait_vocabulary().await?;
        Ok(server)
    }

    /// Until the server has its situation vocabulary: before, every move
    /// runs the model, and a load would measure a cold start. The first
    /// start on a model embeds it (~4,500 sentences) and keeps it beside
    /// the model; later starts load it.
    async fn wait_vocabulary(&self) -> anyhow::Result<()> {
        let Some(token) = &self.admin_token else { return Ok(()) };
        let (started, http) = (Instant::now(), reqwest::Client::new());
        let mut said = false;
        while started.elapsed() < Duration::from_secs(600) {
            let status: serde_json::Value = http
                .get(format!("{}/api/admin/status", self.base))
                .bearer_auth(token)
                .send()
                .await?
                .json()
                .await?;
            if status["embedding"]["pinned"].as_u64() > Some(0) {
                return Ok(());
            }
            if !said {
                eprintln!("live: waiting for the server to embed its situation vocabulary (once per model)");
                said = true;
            }
            tokio::time::sleep(Duration::from_millis(500)).await;
        }
        bail!("the server had no situation vocabulary after 600 s")
    }

    async fn wait_healthy(&self) -> anyhow::Result<()> {
        let deadline = Instant::now() + Duration::from_secs(120);
        while Instant::now() < deadline {
            if reqwest::get(format!("{}/api/health", self.base))
                .await
                .is_ok_and(|r| r.status().is_success())
            {
                return Ok(());
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        bail!("the server did not answer /api/health within 120 s")
    }

    /// Samples the server's resident memory until `deadline`; the peak in KiB
    /// (0 for a remote server).
    pub fn watch_rss(&self, deadline: Instant) -> tokio::task::JoinHandle<u64> {
        let pid = self.child.as_ref().map(Child::id);
        tokio::spawn(async move {
            let Some(pid) = pid else { return 0 };
            let mut peak = 0;
            while Instant::now() < deadline {
                peak = peak.max(rss_kib(pid).unwrap_or(0));
                tokio::time::sleep(Duration::from_millis(500)).await;
            }
            peak
        })
    }
}

/// CPU seconds (user + system) spent so far by the server and by its child
/// processes (the Stockfish pool for live searches, and the deeper
/// evaluation's at the lowest priority, told apart by their niceness), read
/// from /proc; zeros for a remote server.
#[derive(Clone, Copy, Default)]
pub struct CpuSeconds {
    pub server: f64,
    pub engines: f64,
    pub spare_engines: f64,
}

impl LiveServer {
    pub fn cpu(&self) -> CpuSeconds {
        let Some(pid) = self.child.as_ref().map(Child::id) else {
            return CpuSeconds::default();
        };
        let (mut engines, mut spare_engines) = (0.0, 0.0);
        for child in children(pid) {
            let spent = cpu_seconds(child).unwrap_or(0.0);
            match niceness(child).unwrap_or(0) > 0 {
                true => spare_engines += spent,
                false => engines += spent,
            }
        }
        CpuSeconds {
            server: cpu_seconds(pid).unwrap_or(0.0),
            engines,
            spare_engines,
        }
    }
}

/// This process's own CPU seconds (the load generator's share of the machine).
pub fn own_cpu_seconds() -> f64 {
    cpu_seconds(std::process::id()).unwrap_or(0.0)
}

fn cpu_seconds(pid: u32) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // The command name may hold spaces; the fields after its ')' are plain.
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // Linux reports in USER_HZ, 100 on every platform Rust targets here.
    Some(ticks as f64 / 100.0)
}

fn niceness(pid: u32) -> Option<i64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat.rsplit_once(')')?.1.split_whitespace().nth(16)?.parse().ok()
}

fn children(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("children")).ok())
        .flat_map(|c| {
            c.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect::<Vec<u32>>()
        })
        .collect()
}

fn rss_kib(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

impl Drop for LiveServer {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
