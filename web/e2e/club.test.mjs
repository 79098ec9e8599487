// End to end in a real browser (Debian's Chromium, driven by playwright-core)
// against a real `kibitz serve` at $KIBITZ_URL: sign in, play to checkmate by
// clicking squares, chat and get a reply, see the mood change, delete a
// memory and see it stay gone after a reload, read the match's reflection.
// Screenshots go to $ARTIFACTS (default web/test-artifacts).

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { ARTIFACTS, BASE, clickSquare, launch, newMatch, signIn } from "./browser.mjs";

/** White mates with Rd8 (the back rank). */
const BACK_RANK = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1";

test("the club room, end to end", { timeout: 120_000 }, async () => {
  assert.ok(BASE, "KIBITZ_URL names the server under test");
  mkdirSync(ARTIFACTS, { recursive: true });
  const browser = await launch();
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  // A prompt is answered with `promptAnswer` when one is set (editing a memory).
  let promptAnswer = null;
  page.on("dialog", (d) => (d.type() === "prompt" && promptAnswer ? d.accept(promptAnswer) : d.accept()));
  // Keep every WebSocket the page opens, so the test can drop one.
  await page.addInitScript(() => {
    const Native = window.WebSocket;
    window.__sockets = [];
    window.WebSocket = class extends Native {
      constructor(...args) {
        super(...args);
        window.__sockets.push(this);
      }
    };
  });
  try {
    await signIn(page, "Robin");
    assert.equal(await page.locator(".persona").count() >= 3, true, "the personas are listed");
    await page.screenshot({ path: `${ARTIFACTS}/1-lobby.png` });

    // A match from a set position, made with the player's own token.
    const matchId = await newMatch(page, "margot", BACK_RANK);
    await page.goto(`${BASE}/#/play/${matchId}`);
    await page.locator(".board-side cg-board").waitFor();
    const moodBefore = await page.locator(".play").getAttribute("data-emotion");

    // Chat: the persona answers.
    await page.getByLabel("Chat message").fill("I collect antique chess clocks from Vienna");
    await page.getByRole("button", { name: "Send" }).click();
    await page.locator(".msg.persona").last().waitFor();
    await page.waitForFunction(() => document.querySelectorAll(".msg.persona").length >= 2);
    await page.screenshot({ path: `${ARTIFACTS}/2-chat.png` });
    // It heard the line: the reply says the player's fact back to them.
    const replies = await page.locator(".msg.persona").allTextContents();
    assert.ok(replies.some((t) => t.includes("antique chess clocks")), `the reply heard the line: ${replies.join(" | ")}`);

    // A dropped connection: the page reconnects by itself and catches up
    // from the last event it saw, showing nothing twice.
    const before = await page.locator(".msg").count();
    await page.evaluate(() => window.__sockets.at(-1).close());
    await page.waitForFunction(() => window.__sockets.length >= 2 && window.__sockets.at(-1).readyState === 1);
    await page.getByLabel("Chat message").fill("Are you still there?");
    await page.getByRole("button", { name: "Send" }).click();
    await page.waitForFunction((n) => document.querySelectorAll(".msg").length >= n + 2, before);
    const texts = await page.locator(".msg").allTextContents();
    assert.equal(new Set(texts.filter((t) => t.startsWith("You"))).size, texts.filter((t) => t.startsWith("You")).length,
      `no message shown twice: ${texts.join(" | ")}`);
    // Once from the player (the persona may say it back, in its own line).
    const mine = await page.locator(".msg.user").allTextContents();
    assert.equal(mine.filter((t) => t.includes("antique chess clocks")).length, 1);

    // Checkmate by clicking squares: Rd1, then d8.
    await clickSquare(page, "d1");
    await page.locator("square.move-dest").first().waitFor();
    await clickSquare(page, "d8");
    await page.getByText("Game over: 1-0").waitFor({ timeout: 20_000 });
    await page.screenshot({ path: `${ARTIFACTS}/3-checkmate.png` });
    assert.ok((await page.locator(".moves li").allTextContents()).includes("Rd8#"), "the move list shows the mate");
    await page.waitForFunction((before) => document.querySelector(".play").dataset.emotion !== before, moodBefore);

    // The review of the finished match, with its reflection.
    await page.getByRole("link", { name: "Review the game" }).click();
    await page.locator(".summary").waitFor();
    assert.match(await page.locator(".summary").textContent(), /Robin beat Margot|lost to Robin/);
    await page.screenshot({ path: `${ARTIFACTS}/4-reflection.png` });

    // History: the match with its PGN and reflection.
    await page.goto(`${BASE}/#/history`);
    const past = page.locator(`.past-match[data-match="${matchId}"]`);
    await past.waitFor();
    assert.match(await past.textContent(), /1-0 \(checkmate\)/);
    // The PGN comes with the player's token, as a download.
    const [pgnFile] = await Promise.all([page.waitForEvent("download"), past.getByRole("button", { name: "PGN" }).click()]);
    assert.equal(pgnFile.suggestedFilename(), `kibitz-${matchId}.pgn`);
    const pgnText = await (await import("node:fs/promises")).readFile(await pgnFile.path(), "utf8");
    assert.match(pgnText, /\[Result "1-0"\]/);
    // One game is a result, not a streak.
    assert.equal(await page.locator(".streaks").count(), 0, "no streak of one");

    // Memories: the clocks, deleted, and still gone after a reload.
    await page.goto(`${BASE}/#/memories`);
    const clocks = page.locator(".memory", { hasText: "antique chess clocks" }).first();
    await clocks.waitFor();
    await page.screenshot({ path: `${ARTIFACTS}/5-memories.png` });
    const gone = await clocks.getAttribute("data-id");
    const original = await clocks.locator(".content").textContent();
    // Edited, the first text is kept as a version and shown under "Why?".
    promptAnswer = "Robin collects old clocks";
    await clocks.getByRole("button", { name: "Edit" }).click();
    const edited = page.locator(`.memory[data-id="${gone}"]`);
    await edited.locator(".content", { hasText: promptAnswer }).waitFor();
    await edited.getByRole("button", { name: "Why?" }).click();
    await edited.locator(".versions li").first().waitFor();
    assert.ok((await edited.locator(".versions").textContent()).includes(original), "the first text is a version");
    await page.screenshot({ path: `${ARTIFACTS}/5b-memory-versions.png` });
    await edited.getByRole("button", { name: "Delete" }).click();
    await page.waitForFunction((id) => !document.querySelector(`.memory[data-id="${id}"]`), gone);
    await page.reload();
    await page.locator(".memory-list").waitFor();
    await page.waitForTimeout(300);
    assert.equal(await page.locator(`.memory[data-id="${gone}"]`).count(), 0, "deleted for good");

    // Readable on a phone: nothing wider than 360 px.
    await page.setViewportSize({ width: 360, height: 740 });
    await page.goto(`${BASE}/#/play/${matchId}`);
    await page.locator(".board-side cg-board").waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(overflow <= 360, `page is ${overflow}px wide at 360`);
    await page.screenshot({ path: `${ARTIFACTS}/6-phone.png` });
  } catch (e) {
    await page.screenshot({ path: `${ARTIFACTS}/failure.png` }).catch(() => {});
    throw e;
  } finally {
    await browser.close();
  }
});

test("promotion, typed moves and a flipped board", { timeout: 60_000 }, async () => {
  const browser = await launch();
  const page = await browser.newPage({ viewport: { width: 1000, height: 900 } });
  try {
    await signIn(page, "Sam");
    // White pawn on a7 about to queen; kings far apart.
    const matchId = await newMatch(page, "pip", "8/P5k1/8/8/8/8/8/K7 w - - 0 1");
    await page.goto(`${BASE}/#/play/${matchId}`);
    await page.locator(".board-side cg-board").waitFor();
    await clickSquare(page, "a7");
    await clickSquare(page, "a8");
    const dialog = page.getByRole("dialog", { name: "Promote to" });
    await dialog.waitFor();
    await page.screenshot({ path: `${ARTIFACTS}/7-promotion.png` });
    await dialog.getByRole("button", { name: "Queen" }).click();
    await page.locator(".moves li").nth(1).waitFor();
    assert.equal(await page.locator(".moves li").first().textContent(), "a8=Q");

    // A move typed on the keyboard.
    await page.getByLabel("Type a move").fill("Kb2");
    await page.getByLabel("Type a move").press("Enter");
    await page.locator(".moves li").nth(3).waitFor();
    assert.equal(await page.locator(".moves li").nth(2).textContent(), "Kb2");

    // Flip: Black at the bottom.
    await page.getByRole("button", { name: "Flip board" }).click();
    assert.ok(await page.locator(".play .cg-wrap.orientation-black").count(), "the board turned round");
    await page.screenshot({ path: `${ARTIFACTS}/8-flipped.png` });
  } catch (e) {
    await page.screenshot({ path: `${ARTIFACTS}/failure-2.png` }).catch(() => {});
    throw e;
  } finally {
    await browser.close();
  }
});

test("the rating: fair pairings in the lobby, the change after a game, the chart", { timeout: 90_000 }, async () => {
  const browser = await launch();
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  page.on("dialog", (d) => d.accept());
  try {
    await signIn(page, "Lee");
    // A newcomer counts as 1,500 ± 350: only the 1,500 persona is fair.
    await page.locator('.persona[data-persona="margot"] .pairing.fair').waitFor();
    assert.equal(await page.locator('.persona[data-persona="viktor"] .pairing.fair').count(), 0);
    assert.match(await page.locator(".lobby .rating-line").textContent(), /No rated games yet/);
    assert.ok(await page.getByLabel(/Play at my strength/).count(), "the adaptive choice is offered");

    // Three rated games, each resigned at the start, made with the player's token.
    for (let i = 0; i < 3; i++) {
      const id = await newMatch(page, "margot");
      await page.evaluate(async (id) => {
        const player = JSON.parse(localStorage.getItem("kibitz.player"));
        await fetch(`/api/matches/${id}/resign`, { method: "POST", headers: { Authorization: `Bearer ${player.token}`, "Content-Type": "application/json" }, body: "{}" });
      }, id);
    }
    // A fourth, resigned on the page: the change is told in the chat.
    const id = await newMatch(page, "margot");
    await page.goto(`${BASE}/#/play/${id}`);
    await page.locator(".board-side cg-board").waitFor();
    await page.getByRole("button", { name: "Resign" }).click();
    await page.locator(".msg.club", { hasText: "Your rating:" }).waitFor({ timeout: 20_000 });
    assert.match(await page.locator(".msg.club", { hasText: "Your rating:" }).last().textContent(), /Your rating: [\d,]+ ± \d+ \(-\d+\)/);

    await page.goto(`${BASE}/#/history`);
    const chart = page.locator(".rating-chart");
    await chart.waitFor();
    assert.equal(await chart.locator("circle").count(), 4, "a point per rated game");
    assert.equal(await chart.locator("polygon.band").count(), 1, "the deviation as a band");
    assert.match(await page.locator(".history .rating-line").textContent(), /after 4 rated games \(provisional\)/);
    // How well Margot knows Lee after four games: the stage, and when it was reached.
    const known = page.locator('.familiarity li[data-persona="margot"]');
    assert.match(await known.textContent(), /Margot Vidal counts you as (an acquaintance|a regular) · 4 games together · last played today/);
    // The same day, the stage shown is the one its history reached.
    assert.doesNotMatch(await known.textContent(), /faded since|0\.0 points/);
    assert.match(await known.textContent(), /acquaintance after game 1/);
    await page.screenshot({ path: `${ARTIFACTS}/9-rating.png` });
  } catch (e) {
    await page.screenshot({ path: `${ARTIFACTS}/failure-3.png` }).catch(() => {});
    throw e;
  } finally {
    await browser.close();
  }
});

test("the player's controls: a hint, why that move, quiet and chatty", { timeout: 60_000 }, async () => {
  const browser = await launch();
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  try {
    await signIn(page, "Kim");
    const matchId = await newMatch(page, "pip", BACK_RANK);
    await page.goto(`${BASE}/#/play/${matchId}`);
    await page.locator(".board-side cg-board").waitFor();
    // A hint: the engine's move (Rd8#), in Pip's words, counted on the button.
    await page.getByRole("button", { name: "Hint" }).click();
    await page.locator(".msg.persona", { hasText: "A hint? Try “Rd8#”" }).waitFor({ timeout: 20_000 });
    await page.getByRole("button", { name: "Hint (1 used)" }).waitFor();
    // Quiet: pressed, told in the chat, and pressed again it is lifted.
    const quiet = page.getByRole("button", { name: "Quiet" });
    await quiet.click();
    await page.locator(".msg.club", { hasText: "will only speak when spoken to" }).waitFor();
    await page.locator('.talk-controls .quiet[aria-pressed="true"]').waitFor();
    await page.screenshot({ path: `${ARTIFACTS}/10-controls.png` });
    await quiet.click();
    await page.locator(".msg.club", { hasText: "talks as usual again" }).waitFor();
    await page.locator('.talk-controls .quiet[aria-pressed="false"]').waitFor();
    await page.getByRole("button", { name: "Chatty" }).click();
    await page.locator('.talk-controls .chatty[aria-pressed="true"]').waitFor();
  } catch (e) {
    await page.screenshot({ path: `${ARTIFACTS}/failure-4.png` }).catch(() => {});
    throw e;
  } finally {
    await browser.close();
  }
});
