// Looking back at a game, in a real browser at desktop and phone sizes: a
// game with a planted blunder is reviewed (the blunder marked `??`, the
// chart clicked to it, the persona's comment and the better move shown),
// the next game offers the blunder as a puzzle, the player solves it on the
// puzzle board, and the memories page lists it, where it can be dismissed.

import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync } from "node:fs";
import { ARTIFACTS, BASE, clickSquare, launch, newMatch, signIn } from "./browser.mjs";

/** White mates with Qxd8#; Qd4 instead hangs the queen to the rook. */
const MATE_OR_BLUNDER = "3r2k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1";
const AFTER_QD4 = "3r2k1/5ppp/8/8/3Q4/8/5PPP/6K1";

/** The player's puzzles, as the API lists them. */
function puzzles(page) {
  return page.evaluate(async () => {
    const player = JSON.parse(localStorage.getItem("kibitz.player"));
    const res = await fetch(`/api/players/${player.id}/puzzles`, { headers: { Authorization: `Bearer ${player.token}` } });
    return res.json();
  });
}

test("a blunder reviewed, then solved as a puzzle in the next game", { timeout: 150_000 }, async () => {
  assert.ok(BASE, "KIBITZ_URL names the server under test");
  mkdirSync(ARTIFACTS, { recursive: true });
  const browser = await launch();
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  page.on("dialog", (d) => d.accept());
  try {
    await signIn(page, "Quinn");
    const matchId = await newMatch(page, "margot", MATE_OR_BLUNDER);
    await page.goto(`${BASE}/#/play/${matchId}`);
    await page.locator(".board-side cg-board").waitFor();
    // The blunder, by clicking squares; then resign once she has taken the queen.
    await clickSquare(page, "d1");
    await clickSquare(page, "d4");
    await page.locator(".moves li").nth(1).waitFor({ timeout: 20_000 });
    await page.getByRole("button", { name: "Resign" }).click();
    await page.getByRole("link", { name: "Review the game" }).waitFor({ timeout: 20_000 });
    // The puzzle is kept after the game, off the reply.
    for (let i = 0; i < 60 && !(await puzzles(page)).length; i++) await page.waitForTimeout(500);

    await page.getByRole("link", { name: "Review the game" }).click();
    const review = page.locator(".review");
    await review.waitFor();
    const blunder = page.locator('.review-moves .mv[data-ply="1"]');
    assert.equal(await blunder.locator(".glyph").textContent(), "??", "the blunder is marked");
    // At the last position first; a click on the chart's first half goes to move 1.
    await page.getByRole("button", { name: "Last position" }).click();
    assert.equal(await page.locator(".review-board .board").getAttribute("data-ply"), "2");
    const chart = await page.locator(".win-chart").boundingBox();
    await page.mouse.click(chart.x + chart.width * 0.45, chart.y + chart.height / 2);
    const board = page.locator(".review-board .board");
    await page.waitForFunction(() => document.querySelector(".review-board .board").dataset.ply === "1");
    assert.ok((await board.getAttribute("data-fen")).startsWith(AFTER_QD4), await board.getAttribute("data-fen"));
    const comment = await page.locator(".comment .moment-comment").textContent();
    assert.match(comment, /Qd4.*Qxd8#/, "the persona's comment names the better move");
    assert.ok(await page.locator(".review-board .cg-shapes g, .review-board svg.cg-shapes line").count() > 0, "the better move is drawn");
    // The arrow keys step on.
    await page.keyboard.press("ArrowRight");
    await page.waitForFunction(() => document.querySelector(".review-board .board").dataset.ply === "2");
    await page.keyboard.press("ArrowLeft");
    await page.waitForFunction(() => document.querySelector(".review-board .board").dataset.ply === "1");
    assert.equal(await page.locator(".game-puzzles .puzzle").count(), 1, "the game's puzzle is listed");
    await page.waitForFunction(() => !document.querySelector(".review-board piece.anim"));
    await page.screenshot({ path: `${ARTIFACTS}/11-review.png`, fullPage: true });

    // On a phone: nothing wider than the screen, the chart still works.
    await page.setViewportSize({ width: 360, height: 740 });
    await page.reload();
    await review.waitFor();
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(wide <= 360, `the review is ${wide}px wide at 360`);
    const small = await page.locator(".win-chart").boundingBox();
    await page.mouse.click(small.x + small.width * 0.95, small.y + small.height / 2);
    await page.waitForFunction(() => document.querySelector(".review-board .board").dataset.ply === "2");
    await page.waitForFunction(() => !document.querySelector(".review-board piece.anim"));
    await page.screenshot({ path: `${ARTIFACTS}/12-review-phone.png`, fullPage: true });
    await page.setViewportSize({ width: 1100, height: 900 });

    // The next game: Margot offers the blunder, solved on the puzzle board.
    const next = await newMatch(page, "margot");
    await page.goto(`${BASE}/#/play/${next}`);
    await page.locator(".puzzle-offer cg-board").waitFor({ timeout: 20_000 });
    const said = await page.locator(".msg.persona").allTextContents();
    assert.ok(said.some((t) => t.includes("Remember") && t.includes("Qd4")), said.join(" | "));
    await clickSquare(page, "d1", ".puzzle-offer cg-board");
    await clickSquare(page, "d8", ".puzzle-offer cg-board");
    await page.locator('.puzzle-offer[data-verdict="solved"]').waitFor({ timeout: 20_000 });
    await page.waitForFunction(() => [...document.querySelectorAll(".msg.persona")].some((m) => m.textContent.includes("That's it")));
    await page.waitForFunction(() => !document.querySelector(".puzzle-offer piece.anim"));
    await page.screenshot({ path: `${ARTIFACTS}/13-puzzle-solved.png` });
    const [kept] = await puzzles(page);
    assert.equal(kept.solved, 1, "the answer is recorded");

    // The memories page lists it; dismissed on the game's review, it is
    // never offered again, and both lists say so.
    await page.goto(`${BASE}/#/memories`);
    const listed = page.locator(`.memory-puzzles .puzzle[data-id="${kept.id}"]`);
    await listed.waitFor();
    assert.match(await listed.textContent(), /solved 1/);
    await page.goto(`${BASE}/#/history/${matchId}`);
    await page.locator(`.game-puzzles .puzzle[data-id="${kept.id}"]`).getByRole("button", { name: "Dismiss" }).click();
    await page.locator(`.game-puzzles .puzzle[data-id="${kept.id}"][data-status="dismissed"]`).waitFor();
    await page.goto(`${BASE}/#/memories`);
    await page.locator(`.memory-puzzles .puzzle[data-id="${kept.id}"][data-status="dismissed"]`).waitFor();
  } catch (e) {
    await page.screenshot({ path: `${ARTIFACTS}/review-failure.png` }).catch(() => {});
    throw e;
  } finally {
    await browser.close();
  }
});
