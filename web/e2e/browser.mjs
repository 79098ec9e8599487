// What the browser tests share: Chromium, signing in, a match made with the
// player's own token. Not a test file itself (node runs *.test.mjs).

import { chromium } from "playwright-core";

export const BASE = process.env.KIBITZ_URL;
export const ARTIFACTS = process.env.ARTIFACTS || new URL("../test-artifacts", import.meta.url).pathname;

export async function launch() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    headless: true,
    args: ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
      "--disable-sync", "--no-first-run", "--disable-quic"],
  });
}

/** Signs in as `name` and waits for the lobby. */
export async function signIn(page, name) {
  await page.goto(BASE);
  await page.getByLabel("Your name at the club").fill(name);
  await page.getByRole("button", { name: "Come in" }).click();
  await page.locator(".persona").first().waitFor();
}

/** A new match against `persona` (from `fen`, if given); its id. */
export async function newMatch(page, persona, fen) {
  return page.evaluate(async ({ persona, fen }) => {
    const player = JSON.parse(localStorage.getItem("kibitz.player"));
    const res = await fetch("/api/matches", {
      method: "POST",
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${player.token}` },
      body: JSON.stringify({ player_id: player.id, persona_id: persona, color: "white", fen }),
    });
    return (await res.json()).state.id;
  }, { persona, fen });
}

/** Clicks a square of a board (`board`: its cg-board's selector), White at the bottom. */
export async function clickSquare(page, square, board = ".board-side cg-board") {
  const box = await page.locator(board).boundingBox();
  const file = square.charCodeAt(0) - 97;
  const rank = Number(square[1]) - 1;
  const size = box.width / 8;
  await page.mouse.click(box.x + (file + 0.5) * size, box.y + (7 - rank + 0.5) * size);
}
