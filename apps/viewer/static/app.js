// Last Will viewer: replays, the policy's view of a decision, and live play; games other than
// Last Will (Money!) get their own pictures (the server's "game_name" / "game" picks them).
// Plain JavaScript, no libraries; talks only to the server that served it (/api/...).
"use strict";

const S = {
  cat: null,          // /api/catalogue
  meta: null,         // /api/meta
  log: null,          // id of the open log
  logs: [],
  games: [],          // rows of the game list
  gameId: null,
  game: null,         // /api/logs/{log}/games/{game}
  k: 0,
  seat: 0,            // viewing seat
  omni: false,        // every hand
  frameSeq: 0,       // the latest request of each kind wins
  policySeq: 0,
  gameSeq: 0,
  listSeq: 0,
  live: null,         // live game snapshot
  values: null,       // /api/logs/{log}/games/{game}/values: the policy's estimates
  valueSeq: 0,
  setupGame: null,    // the Play tab's game
};

// ------------------------------------------------------------------------------------------
// helpers

function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  if (attrs) {
    for (const [k, v] of Object.entries(attrs)) {
      if (v === null || v === undefined || v === false) continue;
      if (k === "class") el.className = v;
      else if (k === "text") el.textContent = v;
      else if (k.startsWith("on")) el.addEventListener(k.slice(2), v);
      else el.setAttribute(k, v === true ? "" : String(v));
    }
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

function svg(tag, attrs) {
  const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [k, v] of Object.entries(attrs || {})) el.setAttribute(k, String(v));
  return el;
}

const $ = (id) => document.getElementById(id);

function plural(k, word) {
  return `${k} ${word}${k === 1 ? "" : "s"}`;
}

function money(m) {
  return m < 0 ? `-£${-m}` : `£${m}`;
}

function status(text, isError) {
  const el = $("status");
  el.textContent = text || "";
  el.classList.toggle("error", !!isError);
}

class ApiError extends Error {
  constructor(status, body) {
    super(body && body.error ? body.error : `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

// The session token: from the URL that `lastwill view` printed (?token=...), kept in this
// tab's sessionStorage so a reload without it still works; sent with every API request.
const TOKEN = (() => {
  const given = new URLSearchParams(location.search).get("token");
  try {
    if (given) sessionStorage.setItem("lastwill-token", given);
    return given || sessionStorage.getItem("lastwill-token") || "";
  } catch (e) { return given || ""; }
})();

async function api(path, body) {
  const headers = {"X-Lastwill-Token": TOKEN};
  const opts = body === undefined ? {headers} : {
    method: "POST",
    headers: {...headers, "Content-Type": "application/json"},
    body: JSON.stringify(body),
  };
  const r = await fetch(path, opts);
  let data = null;
  try { data = await r.json(); } catch (e) { data = null; }
  if (!r.ok) throw new ApiError(r.status, data);
  return data;
}

function fail(e) {
  status(e.message || String(e), true);
}

function shortSpec(spec) {
  // ppo:some/folder/best.npz -> ppo:best.npz (the full spec is in the title)
  const m = /^ppo:(.*?)(:sample|:det)?$/.exec(spec || "");
  if (!m) return spec;
  return `ppo:${m[1].split("/").pop()}${m[2] || ""}`;
}

function seatName(seats, s) {
  return `P${s} ${shortSpec(seats[s].spec)}`;
}

function seatMark(seat, label) {
  if (seat === null || seat === undefined) return null;
  return h("span", {class: `seatmark c${seat}`, text: label || `P${seat}`});
}

function card(id, extra) {
  // hover: the card's text (price, spend, options, companion slots, privilege); click: the
  // same text in the card box (showCard)
  const c = S.cat.cards[id];
  const cls = ["card", c.category];
  if (c.deck === "special") cls.push("special");
  if (extra && extra.used) cls.push("used");
  const el = h("span", {class: cls.join(" "), "data-card": c.name, "data-card-id": c.id,
    title: c.text, tabindex: 0, role: "button"},
  h("span", {class: "nm", text: c.name}));
  return el;
}

function showCard(id) {
  const c = S.cat.cards[id];
  const box = $("card-info");
  box.replaceChildren(
    h("button", {type: "button", class: "close", title: "close (Escape)", "aria-label": "close",
      onclick: () => { box.hidden = true; }}, "×"),
    h("div", {class: "ci-name", text: c.name}),
    h("div", {class: "ci-text", "data-testid": "card-text", text: c.text}));
  box.dataset.card = c.name;
  box.hidden = false;
}

function onCardClick(ev) {
  const el = ev.target.closest && ev.target.closest("[data-card-id]");
  if (el) showCard(Number(el.dataset.cardId));
}

function boardCard(b) {
  const c = S.cat.cards[b.card];
  const el = card(b.card, b);
  if (c.values.length > 1) {
    el.append(h("br"), h("span", {class: "track"},
      c.values.map((v, i) => h("span", {class: i === b.step ? "on" : "", text: v}))));
  } else if (c.values.length === 1) {
    el.append(h("span", {class: "meta", text: ` £${c.values[0]}`}));
  }
  if (c.slots.length) {
    el.append(h("br"), h("span", {class: "meta"}, c.slots.map(([t, amount], i) =>
      h("span", {class: "tok" + (i < b.filled ? " full" : ""), title: `${t} slot: ${amount}`,
        text: t[0].toUpperCase()}))));
  }
  if (b.used) el.append(" ", h("span", {class: "badge used", text: "used"}));
  if (b.privilege_left) el.append(" ", h("span", {class: "badge", text: `priv ${b.privilege_left}`}));
  return el;
}

// ------------------------------------------------------------------------------------------
// the table picture

function renderTable(fr, seats, root) {
  const n = fr.seats.length;
  const nm = (s) => (s === null || s === undefined ? "-" : seatName(seats, s));
  root.replaceChildren();
  const head = `Round ${fr.round}${fr.final_round ? " (final round)" : ""}` +
    (fr.over ? " · game over" : ` · ${fr.phase_name} · ${nm(fr.to_act)} to act`) +
    ` · start player ${nm(fr.start_player)}`;
  const strip = h("div", {class: "strip"}, h("div", {class: "head", "data-testid": "phase", text: head}));
  strip.append(h("span", null, "market: ",
    S.cat.property_types.map((t, i) => h("b", null, `${t} ${fr.modifiers[i] >= 0 ? "+" : ""}${fr.modifiers[i]} `))));
  strip.append(h("span", null, "token supply: ",
    S.cat.companions.map((t, i) => h("b", null, `${t} ${fr.tokens[i]} `))));
  strip.append(h("span", null, "decks: ",
    S.cat.decks.map((d, i) => h("b", null, `${d} ${fr.deck_sizes[i]} `)),
    h("b", null, `special ${fr.special_deck}`)));
  strip.append(h("span", null, `jokers `, h("b", null, fr.jokers), ` · extensions left `, h("b", null, fr.extensions_left)));
  root.append(strip);

  if (fr.results) root.append(renderResults(fr.results, seats));

  const p = fr.pending;
  const pend = [];
  if (p.actions !== null) pend.push(`actions left ${p.actions}`);
  if (p.using !== null && p.using !== undefined) pend.push(`using ${S.cat.cards[p.using].name}: choose its option`);
  if (p.resolving !== null) pend.push(`resolving ${S.cat.cards[p.resolving].name} (spend ${p.spend}, add-on ${p.addon}, steps left ${p.steps_left})`);
  if (p.draw) pend.push(`blind draw: ${p.draw.left} left, chosen so far: ${p.draw.queue.join(", ") || "-"}`);
  if (pend.length || p.kept.length) {
    root.append(h("div", {class: "pending"}, pend.join(" · "),
      p.kept.length ? h("span", null, pend.length ? " · " : "", "kept so far: ", p.kept.map((c) => card(c))) : null));
  }

  // offer board and errands
  const offer = h("div", {class: "group", "data-testid": "offer"}, h("h4", {text: "Offer board"}),
    h("div", {class: "slots"}, fr.offer.map((o) => h("div", {class: "space"},
      h("div", {class: "n", text: `space ${o.space + 1}`}),
      o.card === null ? h("span", {class: "muted", text: "empty"}) : card(o.card),
      o.taken_by !== null ? h("div", {title: seats[o.taken_by].name}, "errand boy ", seatMark(o.taken_by)) : null))));
  const e = fr.errands;
  const errands = h("div", {class: "group", "data-testid": "errands"}, h("h4", {text: "Errands"}),
    h("div", {class: "errands"},
      h("span", {class: "errand" + (e.market_used ? " used" : ""), text: `property market: ${e.market_used ? "taken" : "free"}`}),
      h("span", {class: "errand" + (e.opera_used ? " used" : ""), text: `opera: ${e.opera_used ? "taken" : "free"}`}),
      h("span", {class: "errand" + (e.extension_used >= e.extension_capacity ? " used" : ""),
        text: `board extension: ${e.extension_used}/${e.extension_capacity}`}),
      h("span", {class: "errand"}, "unknown card taken by: ",
        fr.seats.filter((s) => s.unknown_used).map((s) => seatMark(s.seat)), fr.seats.some((s) => s.unknown_used) ? null : "nobody"),
      h("span", {class: "errand"}, "errand boys left: ", fr.seats.map((s) => h("span", null, seatMark(s.seat), ` ${s.errand_boys_left} `)))));
  root.append(h("div", {class: "row"}, offer));

  // plan board
  const plans = h("div", {class: "group", "data-testid": "plans"}, h("h4", {text: "Plan board"}),
    h("div", {class: "slots"}, fr.plans.map((pl) => h("div", {class: "space plan" + (pl.blocked ? " blocked" : "")},
      h("div", {class: "n", text: `plan ${pl.space + 1} · order ${pl.order}`}),
      h("div", {text: `${plural(pl.cards, "card")} · ${plural(pl.errand_boys, "boy")} · ${plural(pl.actions, "action")}`}),
      pl.taken_by !== null ? h("div", {title: seats[pl.taken_by].name}, "taken by ", seatMark(pl.taken_by)) : null,
      pl.blocked ? h("div", {class: "muted", text: "blocked"}) : null))),
    fr.plan_order.length ? h("div", {class: "strip"}, "turn order: ", fr.plan_order.map((s) => seatMark(s))) : null);
  root.append(h("div", {class: "row"}, plans, errands));

  // players
  const players = h("div", {class: "players"});
  for (const s of fr.seats) {
    const known = s.known || [];
    const hand = s.hand === null
      ? [known.length ? h("span", {"data-testid": "known"}, known.map((c) => card(c))) : null,
        h("span", {class: "hidden-hand", text: known.length
          ? ` + ${s.hand_size - known.length} hidden (${s.hand_size} in all; the shown ones were taken face up)`
          : `${s.hand_size} card${s.hand_size === 1 ? "" : "s"}, hidden`})]
      : (s.hand.length ? s.hand.map((c) => card(c)) : h("span", {class: "muted", text: "empty"}));
    const plan = s.plan === null ? "no plan" : `plan ${s.plan + 1} (order ${fr.plans[s.plan].order})`;
    players.append(h("div", {class: `player b${s.seat}` + (fr.to_act === s.seat ? " acting" : ""),
      "data-testid": "player", "data-seat": s.seat},
    h("div", {class: "ph"},
      h("span", {class: "pname", title: s.name, text: seatName(seats, s.seat) + (fr.view === s.seat ? " (view)" : "")}),
      h("span", {class: "money" + (s.money < 0 ? " neg" : ""), "data-testid": "money", "data-seat": s.seat,
        text: money(s.money)})),
    h("div", {class: "facts", text: `hand ${s.hand_size} · extensions ${s.extensions} · ${plan} · errand boys left ${s.errand_boys_left}`}),
    h("div", {class: "board"}, h("span", {class: "lbl", text: "board"}),
      s.board.length ? s.board.map(boardCard) : h("span", {class: "muted", text: "empty"})),
    h("div", {class: "hand", "data-testid": "hand", "data-seat": s.seat}, h("span", {class: "lbl", text: "hand"}), hand)));
  }
  root.append(players);

  const disc = fr.discards.filter((d) => d.cards.length || d.hidden);
  root.append(h("details", {class: "more"}, h("summary", {text: "discard piles and the box"}),
    disc.map((d) => h("div", null, `${d.deck}: `, d.cards.map((c) => card(c)),
      d.hidden ? ` (+${d.hidden} face down)` : "")),
    h("div", null, "out of the game: ", fr.box.length ? fr.box.map((c) => card(c)) : "-")));
  void n;
}

function renderResults(r, seats) {
  const order = seats.map((s) => s.seat).sort((a, b) => r.ranks[a] - r.ranks[b] || a - b);
  return h("div", {class: "results", "data-testid": "results"},
    h("b", null, `Winner: ${seatName(seats, r.winner)}`), ` (decided by ${r.decided_by}, ${r.rounds} rounds)`,
    h("table", null, h("tr", null, ["rank", "seat", "money", "property", "total"].map((t) => h("th", {text: t}))),
      order.map((s) => h("tr", null, h("td", {text: r.ranks[s]}), h("td", {text: seatName(seats, s), title: seats[s].name}),
        h("td", {text: money(r.money[s])}), h("td", {text: money(r.property_value[s])}),
        h("td", {text: money(r.totals[s]) + (r.bankrupt[s] ? " bankrupt" : "")})))));
}

// ------------------------------------------------------------------------------------------
// money chart (inline SVG)

const SEAT_COLORS = ["#c0392b", "#2471a3", "#229954", "#b9770e", "#7d3c98"];

function renderChart(root, series, names, k, roundStarts, onPick) {
  root.replaceChildren();
  const W = 320, H = 170, L = 34, R = 6, T = 8, B = 18;
  const len = series.length ? series[0].length : 0;
  let lo = Infinity, hi = -Infinity;
  for (const s of series) for (const v of s) { lo = Math.min(lo, v); hi = Math.max(hi, v); }
  if (!isFinite(lo)) { lo = 0; hi = 1; }
  if (hi - lo < 10) { const mid = (hi + lo) / 2; lo = mid - 5; hi = mid + 5; }
  const pad = (hi - lo) * 0.06; lo -= pad; hi += pad;
  const x = (i) => L + (len > 1 ? (i / (len - 1)) * (W - L - R) : 0);
  const y = (v) => T + (1 - (v - lo) / (hi - lo)) * (H - T - B);
  const el = svg("svg", {viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": "money of every seat over the decisions"});
  const step = niceStep((hi - lo) / 4);
  for (let v = Math.ceil(lo / step) * step; v <= hi; v += step) {
    el.append(svg("line", {x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: v === 0 ? "#999" : "#e6dfd0", "stroke-width": 1}));
    const t = svg("text", {x: L - 3, y: y(v) + 3, "text-anchor": "end", "font-size": 9, fill: "#76706a"});
    t.textContent = `£${v}`; el.append(t);
  }
  for (const [rd, start] of Object.entries(roundStarts || {})) {
    el.append(svg("line", {x1: x(start), x2: x(start), y1: T, y2: H - B, stroke: "#efe8da", "stroke-width": 1}));
    const t = svg("text", {x: x(start) + 2, y: H - 5, "font-size": 9, fill: "#76706a"});
    t.textContent = `R${rd}`; el.append(t);
  }
  const colors = SEAT_COLORS;
  series.forEach((s, p) => {
    const pts = s.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
    el.append(svg("polyline", {points: pts, fill: "none", stroke: colors[p], "stroke-width": 1.6}));
  });
  if (len) {
    el.append(svg("line", {x1: x(k), x2: x(k), y1: T, y2: H - B, stroke: "#22201c", "stroke-width": 1, "stroke-dasharray": "3 2"}));
    series.forEach((s, p) => el.append(svg("circle", {cx: x(k), cy: y(s[Math.min(k, len - 1)]), r: 2.5, fill: colors[p]})));
  }
  if (onPick && len > 1) {
    el.addEventListener("click", (ev) => {
      const box = el.getBoundingClientRect();
      const fx = ((ev.clientX - box.left) / box.width) * W;
      onPick(Math.max(0, Math.min(len - 1, Math.round(((fx - L) / (W - L - R)) * (len - 1)))));
    });
  }
  root.append(el, h("div", {class: "legend"}, names.map((nm, p) => h("span", null,
    (() => { const sw = h("span", {class: `sw c${p}`}); return sw; })(),
    `${nm} ${len ? money(series[p][Math.min(k, len - 1)]) : ""}`))));
}

// the policy's estimate over the decisions: a win chance (0-100%) or an expected rank

function renderValueChart(root, data, seats, total, k, roundStarts, onPick) {
  root.replaceChildren();
  const entries = Object.entries((data && data.seats) || {});
  if (!entries.length) {
    root.append(h("span", {class: "muted", text: "no ppo:PATH seat in this view"}));
    return;
  }
  const measure = (entries.find(([, v]) => v.measure) || [null, {}])[1].measure;
  const n = seats.length;
  const W = 320, H = 130, L = 34, R = 6, T = 8, B = 18;
  const [lo, hi] = measure === "expected_rank" ? [n, 1] : [0, 1];  // better is up
  const x = (i) => L + (total > 0 ? (i / total) * (W - L - R) : 0);
  const y = (v) => T + (1 - (v - lo) / (hi - lo)) * (H - T - B);
  const el = svg("svg", {viewBox: `0 0 ${W} ${H}`, role: "img", "data-measure": measure || "",
    "aria-label": "the policy's estimate over the decisions"});
  const ticks = measure === "expected_rank" ? [...Array(n).keys()].map((i) => i + 1) : [0, 0.25, 0.5, 0.75, 1];
  for (const v of ticks) {
    el.append(svg("line", {x1: L, x2: W - R, y1: y(v), y2: y(v), stroke: "#e6dfd0", "stroke-width": 1}));
    const t = svg("text", {x: L - 3, y: y(v) + 3, "text-anchor": "end", "font-size": 9, fill: "#76706a"});
    t.textContent = measure === "expected_rank" ? `#${v}` : `${Math.round(v * 100)}%`; el.append(t);
  }
  if (measure === "win_chance") {  // the even chance
    el.append(svg("line", {x1: L, x2: W - R, y1: y(1 / n), y2: y(1 / n), stroke: "#999", "stroke-width": 1, "stroke-dasharray": "2 2"}));
  }
  for (const [rd, start] of Object.entries(roundStarts || {})) {
    el.append(svg("line", {x1: x(start), x2: x(start), y1: T, y2: H - B, stroke: "#efe8da", "stroke-width": 1}));
    const t = svg("text", {x: x(start) + 2, y: H - 5, "font-size": 9, fill: "#76706a"});
    t.textContent = `R${rd}`; el.append(t);
  }
  const legend = [];
  for (const [seat, v] of entries) {
    const color = SEAT_COLORS[Number(seat)];
    if (v.points.length) {
      el.append(svg("polyline", {points: v.points.map(([i, p]) => `${x(i).toFixed(1)},${y(p).toFixed(1)}`).join(" "),
        fill: "none", stroke: color, "stroke-width": 1.6, "data-seat": seat}));
    }
    const last = v.points.filter(([i]) => i <= k).pop();
    const shown = last ? formatEstimate(measure, last[1]) : "-";
    legend.push(h("span", {title: v.note || ""}, h("span", {class: `sw c${seat}`}),
      `${seatName(seats, Number(seat))} ${v.note ? "(no value)" : shown}`));
    if (last) el.append(svg("circle", {cx: x(last[0]), cy: y(last[1]), r: 2.5, fill: color}));
  }
  el.append(svg("line", {x1: x(k), x2: x(k), y1: T, y2: H - B, stroke: "#22201c", "stroke-width": 1, "stroke-dasharray": "3 2"}));
  if (onPick && total > 0) {
    el.addEventListener("click", (ev) => {
      const box = el.getBoundingClientRect();
      const fx = ((ev.clientX - box.left) / box.width) * W;
      onPick(Math.max(0, Math.min(total, Math.round(((fx - L) / (W - L - R)) * total))));
    });
  }
  root.append(el, h("div", {class: "legend", "data-testid": "value-legend"}, legend));
}

function formatEstimate(measure, v) {
  return measure === "expected_rank" ? `rank ${v.toFixed(2)}` : `${(v * 100).toFixed(0)}%`;
}

function niceStep(raw) {
  const p = Math.pow(10, Math.floor(Math.log10(Math.max(raw, 1))));
  for (const m of [1, 2, 5, 10]) if (m * p >= raw) return m * p;
  return 10 * p;
}

// ------------------------------------------------------------------------------------------
// replays

async function loadMeta() {
  [S.cat, S.meta] = await Promise.all([api("/api/catalogue"), api("/api/meta")]);
  S.logs = S.meta.logs;
}

function fillLogSelect() {
  const sel = $("log-select");
  sel.replaceChildren(...S.logs.map((l) => h("option", {value: l.id, text: `${l.name} (${l.games} game${l.games === 1 ? "" : "s"})`})));
  if (S.log) sel.value = S.log;
}

async function openLog(id, keepFilters) {
  if (S.log !== id) {  // another log: its games are new
    S.gameId = null;
    S.game = null;
    $("game-view").hidden = true;
    $("empty-game").hidden = false;
  }
  S.log = id;
  fillLogSelect();
  const info = S.logs.find((l) => l.id === id);
  if (!keepFilters) {
    for (const f of ["f-entrant", "f-winner"]) {
      $(f).replaceChildren(h("option", {value: "", text: "any"}),
        ...(info ? info.entrants : []).map((e) => h("option", {value: e, text: e})));
    }
  }
  await loadGames();
}

async function loadGames() {
  const q = new URLSearchParams();
  if ($("f-entrant").value) q.set("entrant", $("f-entrant").value);
  if ($("f-winner").value) q.set("winner", $("f-winner").value);
  const seq = ++S.listSeq;
  const data = await api(`/api/logs/${S.log}/games?${q}`);
  if (seq !== S.listSeq) return;  // the filters or the log changed meanwhile
  S.games = data.games;
  const info = S.logs.find((l) => l.id === S.log);
  $("game-list").querySelector("thead th:nth-child(2)").textContent = info && isTableGame(info.game)
    ? "seats and final score (winner bold)" : "seats and final money (winner bold)";
  const body = $("game-list").querySelector("tbody");
  body.replaceChildren(...S.games.map((g) => {
    const seats = g.seating.map((sp, i) => h("div", {class: "gseat" + (g.winner === i ? " win" : ""), title: sp},
      h("span", {text: `P${i} ${shortSpec(sp)}`}), h("span", {class: "gm", text: g.money ? money(g.money[i]) : (g.scores ? String(g.scores[i]) : "")})));
    const note = g.error ? h("div", {class: "muted", text: `error: ${g.error.message}`}) : (g.finished ? null : h("div", {class: "muted", text: "unfinished"}));
    const tr = h("tr", {class: g.error ? "game err" : "game", "data-game": g.game, title: g.error ? g.error.message : `game ${g.game}: ${g.decisions} decisions`},
      h("td", {text: g.game}), h("td", null, seats, note), h("td", {text: g.rounds ?? "-"}));
    if (!g.error) tr.addEventListener("click", () => openGame(g.game).catch(fail));
    if (g.game === S.gameId) tr.classList.add("sel");
    return tr;
  }));
  $("games-count").textContent = `${S.games.length} game${S.games.length === 1 ? "" : "s"} shown`;
}

function viewParam() {
  return S.omni ? "all" : String(S.seat);
}

async function openGame(gameId, k) {
  const first = S.gameId !== gameId;
  S.gameId = gameId;
  if (first) {
    const row = S.games.find((g) => g.game === gameId);
    const seating = row ? row.seating : [];
    let seat = seating.findIndex((sp) => sp.startsWith("ppo:"));
    if (row && row.human_seat !== null && row.human_seat !== undefined) seat = row.human_seat;
    S.seat = seat >= 0 ? seat : 0;
  }
  await loadGame(k === undefined ? (first ? 0 : S.k) : k);
  for (const tr of $("game-list").querySelectorAll("tr.game")) tr.classList.toggle("sel", Number(tr.dataset.game) === gameId);
}

async function loadGame(k, fromView) {
  // fromView: k is a decision of the view shown so far (the view is being switched)
  const seq = ++S.gameSeq;
  const g = await api(`/api/logs/${S.log}/games/${S.gameId}?seat=${viewParam()}`);
  if (seq !== S.gameSeq) return;  // another game (or view) was asked for meanwhile
  if (isTableGame(g.game_name)) return loadTableGame(g, k, fromView);
  setLastWillBoxes(true);
  S.game = g;
  $("empty-game").hidden = true;
  $("game-view").hidden = false;
  $("game-title").textContent = `Game ${g.game} · ${g.num_players} players · deal seed ${g.deal_seed} · ${g.total} decisions` +
    (g.finished ? "" : " · unfinished");
  const vs = $("view-seat");
  vs.replaceChildren(...g.seats.map((s) => h("option", {value: s.seat, text: seatName(g.seats, s.seat)})));
  vs.value = String(S.seat);
  vs.disabled = S.omni;
  $("omniscient").checked = S.omni;
  $("continue-play").hidden = !(g.kind === "play" && !g.finished);
  $("slider").max = String(g.total);
  const list = $("dec-list");
  list.replaceChildren(...g.decisions.map((d) => h("li", {"data-k": d.k, value: d.k + 1, onclick: () => go(d.k)},
    h("span", {class: "r", text: `R${d.round}`}), seatMark(d.seat), " ", d.name)));
  S.values = null;
  loadValues().catch(fail);
  await step(Math.min(Math.max(0, k || 0), g.total));
}

async function loadValues() {
  const seq = ++S.valueSeq;
  const g = S.game;
  $("value-chart").replaceChildren(h("span", {class: "muted", text: "computing…"}));
  const v = await api(`/api/logs/${S.log}/games/${S.gameId}/values?seat=${viewParam()}`);
  if (seq !== S.valueSeq || g !== S.game) return;
  S.values = v;
  drawValues();
}

function drawValues() {
  const g = S.game;
  if (!g || !S.values) return;
  renderValueChart($("value-chart"), S.values, g.seats, g.total, S.k, g.round_starts, go);
}

// One numbering of decisions: the list, the position and the address all count from 1
// (decision 1 is the first; the API's index k is the number - 1). The address's fragment is
// #log=L&game=G&seat=S&d=N, with d=end after the last decision.
function decisionNumber(k, total) {
  return k < total ? String(k + 1) : "end";
}

function fragmentFor(k) {
  return `#log=${S.log}&game=${S.gameId}&seat=${viewParam()}&d=${decisionNumber(k, S.game.total)}`;
}

function hashIndex(hash, total) {
  // the index k the fragment names: d=N (from 1) or d=end; k=K (an index, older links)
  if (hash.d === "end") return total;
  if (/^\d{1,9}$/.test(hash.d || "")) return Math.max(0, Number(hash.d) - 1);
  if (/^\d{1,9}$/.test(hash.k || "")) return Number(hash.k);
  return null;
}

async function go(k) {
  try {
    await step(k);
  } catch (e) { fail(e); }
}

async function step(k) {
  if (!S.game) return;
  k = Math.max(0, Math.min(S.game.total, k));
  S.k = k;
  if (isTableGame(S.game.game_name)) return stepTable(k);
  const g = S.game;
  $("slider").value = String(k);
  $("pos").textContent = k < g.total ? `decision ${k + 1} of ${g.total}` : `end (after ${g.total} decisions)`;
  $("pos").dataset.k = String(k);
  const d = g.decisions[k];
  $("decision-line").replaceChildren(d
    ? h("span", null, "next: ", seatMark(d.seat, seatName(g.seats, d.seat)), " ", h("b", {"data-testid": "decision-name", text: d.name}), h("span", {class: "muted", text: ` (${d.phase}, round ${d.round})`}))
    : h("span", {class: "muted", text: g.finished ? "the game is over" : "the record ends here (unfinished game)"}));
  for (const li of $("dec-list").querySelectorAll("li.cur")) li.classList.remove("cur");
  const li = $("dec-list").querySelector(`li[data-k="${k}"]`);
  if (li) { li.classList.add("cur"); li.scrollIntoView({block: "nearest"}); }
  renderChart($("chart"), g.money, g.seats.map((s) => `P${s.seat}`), k, g.round_starts, go);
  drawValues();
  if (location.hash !== fragmentFor(k)) history.replaceState(null, "", fragmentFor(k));
  const seq = ++S.frameSeq;
  const where = `${S.log}:${S.gameId}`;
  const fr = await api(`/api/logs/${S.log}/games/${S.gameId}/frames/${k}?seat=${viewParam()}`);
  if (seq !== S.frameSeq) return;  // a newer step is on its way
  renderTable(fr, g.seats, $("table"));
  $("table").dataset.k = String(k);
  $("table").dataset.game = where;
  loadPolicy(k).catch(fail);
}

async function loadPolicy(k) {
  const g = S.game;
  const box = $("policy");
  const d = g.decisions[k];
  const seq = ++S.policySeq;
  if (!d) { box.replaceChildren(h("span", {class: "muted", text: "no decision here"})); return; }
  if (!g.seats[d.seat].policy) {
    box.replaceChildren(h("span", {class: "muted", text: `${seatName(g.seats, d.seat)} decides here (not a ppo:PATH policy)`}));
    return;
  }
  box.replaceChildren(h("span", {class: "muted", text: "computing…"}));
  let a;
  try {
    a = await api(`/api/logs/${S.log}/games/${S.gameId}/analysis/${k}?seat=${viewParam()}&top=6`);
  } catch (e) {
    if (seq !== S.policySeq) return;
    box.replaceChildren(h("span", {class: "muted", "data-testid": "policy-error", text: e.message}));
    return;
  }
  if (seq !== S.policySeq) return;
  const val = policyValue(a, g.num_players);
  const rows = a.top.slice();
  if (!rows.some((r) => r.chosen)) rows.push(a.chosen);
  const pct = (p) => `${(p * 100).toFixed(1)}%`;
  const p = a.prior;
  box.replaceChildren(
    h("div", {class: "muted", title: a.checkpoint, text: `${seatName(g.seats, a.seat)} · ${a.legal} legal actions · ${a.mode === "sample" ? "samples" : "plays the arg-max"}` + (a.step ? ` · step ${a.step}` : "")}),
    val,
    p ? h("div", {class: "muted pol-prior", "data-testid": "policy-prior"},
      `played: the network plus +${p.weight} to the logit of ${p.bot}'s pick (◆ ${p.name}); net: the network alone`) : null,
    p ? h("div", {class: "pol-row with-net pol-head muted"}, h("span"), h("span", {class: "pct", text: "played"}), h("span", {class: "pct", text: "net"})) : null,
    ...rows.map((r) => {
      const fill = h("span", {class: "fill"});
      fill.style.width = pct(r.prob);
      const mark = (r.chosen ? "  ◀ played" : "") + (r.prior_pick ? `  ◆ ${p.bot}` : "");
      return h("div", {class: "pol-row" + (p ? " with-net" : "") + (r.chosen ? " chosen" : ""), "data-testid": "policy-row", title: r.chosen ? "the recorded action" : ""},
        h("div", {class: "pol-bar"}, fill, h("span", {class: "txt", text: `${r.rank}. ${r.name}${mark}`})),
        h("span", {class: "pct", text: pct(r.prob)}),
        p ? h("span", {class: "pct net", "data-testid": "policy-net", text: pct(r.net_prob)}) : null);
    }));
}

function policyValue(a, n) {
  // the critic's value read as a win chance (zero_sum policies) or an expected rank (rank)
  if (a.value === null) {
    return h("div", {class: "pol-val muted", "data-testid": "policy-value", text: "value estimate: not available"},
      h("br"), h("small", {text: a.value_note}));
  }
  const raw = `critic value ${(a.value >= 0 ? "+" : "") + a.value.toFixed(3)} (reward ${a.reward || "?"}` +
    `${a.shaping ? ", shaping " + a.shaping : ""})`;
  const e = a.estimate;
  if (!e) return h("div", {class: "pol-val", "data-testid": "policy-value", text: raw});
  const head = e.win_chance !== null
    ? ["win chance ", h("b", {"data-testid": "win-chance", text: `${(e.win_chance * 100).toFixed(0)}%`}),
      h("small", {class: "muted", text: ` (even chance ${(100 / n).toFixed(0)}%)`})]
    : ["expected rank ", h("b", {"data-testid": "expected-rank", text: e.expected_rank.toFixed(2)}),
      h("small", {class: "muted", text: ` of ${n}`})];
  return h("div", {class: "pol-val", "data-testid": "policy-value",
    title: "the critic's estimate of this seat's result, the shaping it was trained with added back"},
  ...head, h("br"), h("small", {class: "muted", text: raw}));
}

function roundStartsList() {
  return Object.values(S.game.round_starts).sort((a, b) => a - b);
}

function nextRound() {
  const s = roundStartsList().find((x) => x > S.k);
  go(s === undefined ? S.game.total : s);
}

function prevRound() {
  const starts = roundStartsList().filter((x) => x < S.k);
  go(starts.length ? starts[starts.length - 1] : 0);
}

// ------------------------------------------------------------------------------------------
// games other than Last Will (Money!): the server draws every picture from the watched seat's
// own view (apps/viewer/tablegame.py); a game without a board of its own shows its text only

const LASTWILL = "lastwill";

function isTableGame(name) {
  return !!name && name !== LASTWILL;
}

function gameInfo(name) {
  const games = (S.meta && S.meta.games) || [];
  return games.find((g) => g.name === name) || games[0] ||
    {name: LASTWILL, title: "Last Will", player_counts: [2, 3, 4, 5], default_players: 4, options: []};
}

function mcard(c, extra) {
  const cls = ["mcard", c.kind === "note" ? `cur-${c.currency}` : c.kind];
  if (extra) cls.push(extra);
  return h("span", {class: cls.join(" "), "data-card": c.label, "data-card-id-money": c.id, text: c.label});
}

function mcards(list, mark) {
  if (!list || !list.length) return h("span", {class: "muted", text: "nothing"});
  const marked = new Set((mark || []).map((c) => c.id));
  return list.map((c) => mcard(c, marked.has(c.id) ? "inbid" : null));
}

function ids(cards) {
  return cards.map((c) => c.id).join(",");
}

function mgroup(title, g, testid) {
  return h("div", {class: "group", "data-testid": testid}, h("h4", {text: title}),
    h("div", {class: "slots"}, mcards(g.cards)), h("div", {class: "mval", text: `value ${g.value}`}));
}

function moneyHead(b, seats) {
  const nm = (s) => (s === null || s === undefined ? "-" : seatName(seats, s));
  const turn = b.over ? "game over" : `${b.phase_name} · ${nm(b.to_act)} to act`;
  return h("div", {class: "strip"},
    h("div", {class: "head", "data-testid": "phase",
      text: `Money! round ${b.round}${b.last_round ? " (the last round)" : ""} · ${turn}`}),
    h("span", null, "first bidder ", h("b", null, nm(b.first_bidder))),
    h("span", {"data-testid": "m-pile"}, "pile ", h("b", null, plural(b.pile, "card"))),
    b.order.length ? h("span", {"data-testid": "m-order"}, "still to act: ", b.order.map((s) => seatMark(s))) : null);
}

function moneyResults(b, seats) {
  const rows = b.results.slice().sort((x, y) => x.place - y.place || x.seat - y.seat);
  return h("div", {class: "results", "data-testid": "m-results"},
    h("table", null, h("tr", null, ["place", "seat", "score"].map((t) => h("th", {text: t}))),
      rows.map((r) => h("tr", {"data-seat": r.seat},
        h("td", {text: `${r.place}${r.shared ? " (shared)" : ""}`}),
        h("td", {text: seatName(seats, r.seat)}), h("td", {text: r.score})))));
}

function moneyBids(b, seats) {
  // the bids as revealed this round, and what lies on the table now (the exchange phase)
  return h("div", {class: "group", "data-testid": "m-bids"}, h("h4", {text: "Bids revealed this round"}),
    b.seats.map((s) => h("div", {class: "mbid", "data-seat": s.seat}, seatMark(s.seat), " ",
      s.revealed.cards.length ? mcards(s.revealed.cards) : h("span", {class: "muted", text: s.bluffed ? "the bluff only: sits out" : "no bid"}),
      s.revealed.cards.length ? ` value ${s.revealed.value}${s.bluffed ? " + bluff" : ""}` : "",
      s.acted ? h("span", {class: "muted", text: " · acted"}) : (s.table.cards.length && ids(s.table.cards) !== ids(s.revealed.cards)
        ? h("span", null, " · now holds ", mcards(s.table.cards)) : null))));
}

function moneySeat(s, b, fr, seats) {
  const parts = [];
  if (s.final_hand) parts.push(h("div", {class: "hand", "data-testid": "m-hand", "data-seat": s.seat}, h("span", {class: "lbl", text: "hand"}), mcards(s.final_hand)));
  else if (s.hand) {
    parts.push(h("div", {class: "hand", "data-testid": "m-hand", "data-seat": s.seat}, h("span", {class: "lbl", text: "hand"}), mcards(s.hand, s.bid)));
    if (s.bid) parts.push(h("div", {"data-testid": "m-bid", "data-seat": s.seat}, h("span", {class: "lbl", text: "hidden bid"}),
      s.bid.length ? mcards(s.bid) : h("span", {class: "muted", text: "nothing yet"})));
  } else {
    parts.push(h("div", {class: "hand", "data-testid": "m-hand", "data-seat": s.seat}, h("span", {class: "lbl", text: "hand"}),
      h("span", {class: "hidden-hand", text: `${plural(s.hand_size, "card")}, hidden; known: `}), mcards(s.known)));
  }
  const res = b.results ? b.results.find((r) => r.seat === s.seat) : null;
  const me = fr.view === s.seat ? " (view)" : "";
  return h("div", {class: `player b${s.seat}` + (b.to_act === s.seat ? " acting" : ""), "data-testid": "m-seat", "data-seat": s.seat},
    h("div", {class: "ph"}, h("span", {class: "pname", title: s.name, text: seatName(seats, s.seat) + me}),
      res ? h("span", {class: "money", text: String(res.score)}) : null),
    h("div", {class: "facts", text: `${plural(s.hand_size, "card")} in hand` + (res ? ` · place ${res.place}${res.shared ? " (shared)" : ""}` : "")}),
    parts);
}

function renderMoney(fr, seats, root) {
  const b = fr.board;
  root.append(moneyHead(b, seats));
  if (b.results) root.append(moneyResults(b, seats));
  root.append(h("div", {class: "row"}, mgroup("Right group", b.right, "m-right"), mgroup("Left group", b.left, "m-left")));
  if (b.phase_name === "exchange") root.append(h("div", {class: "row"}, moneyBids(b, seats)));
  root.append(h("div", {class: "players"}, b.seats.map((s) => moneySeat(s, b, fr, seats))));
}

function renderTableFrame(fr, seats, root) {
  // the picture of a game other than Last Will: its board when it has one, and its text
  root.replaceChildren();
  if (fr.board && fr.game_name === "money") renderMoney(fr, seats, root);
  root.append(h("details", {class: "more", open: fr.board ? null : true},
    h("summary", {text: "as text"}), h("pre", {class: "vtext", "data-testid": "view-text", text: fr.text})));
}

function entryItem(d, onclick) {
  return h("li", {"data-k": d.k, value: d.k + 1, onclick, class: d.hidden ? "hiddenmove" : null,
    title: d.change.join("\n")},
  h("span", {class: "r", text: d.round === null ? "" : `R${d.round}`}), seatMark(d.seat), " ", d.name,
  d.change.length ? h("div", {class: "chg", text: d.change.join(" · ")}) : null);
}

function setLastWillBoxes(shown) {
  for (const id of ["chart-box", "policy-box", "value-box"]) $(id).hidden = !shown;
}

function sameMoment(old, g, k) {
  // switching the view of a game other than Last Will keeps the round and phase (the views
  // number their moments differently: another seat's hidden moves are one moment)
  if (!old || old.game_name !== g.game_name || old.game !== g.game) return Math.min(k, g.total);
  if (k >= old.total) return g.total;
  const d = old.decisions[k];
  const same = g.decisions.find((e) => e.round === d.round && e.phase === d.phase) ||
    g.decisions.find((e) => e.round === d.round);
  return same ? same.k : Math.min(k, g.total);
}

async function loadTableGame(g, k, fromView) {
  const old = S.game;
  g.log = S.log;
  S.game = g;
  $("empty-game").hidden = true;
  $("game-view").hidden = false;
  $("game-title").textContent = `Game ${g.game} · ${g.title} · ${g.num_players} players · deal seed ${g.deal_seed} · ` +
    `${plural(g.total, "decision")} in this view` + (g.finished ? "" : " · unfinished");
  const vs = $("view-seat");
  vs.replaceChildren(...g.seats.map((s) => h("option", {value: s.seat, text: seatName(g.seats, s.seat)})));
  vs.value = String(S.seat);
  vs.disabled = S.omni;
  $("omniscient").checked = S.omni;
  $("continue-play").hidden = true;
  $("slider").max = String(g.total);
  setLastWillBoxes(false);
  $("dec-list").replaceChildren(...g.decisions.map((d) => entryItem(d, () => go(d.k))));
  S.values = null;
  const from = fromView && old && old.log === g.log ? old : null;
  await step(sameMoment(from, g, Math.max(0, k || 0)));
}

async function stepTable(k) {
  const g = S.game;
  $("slider").value = String(k);
  $("pos").textContent = k < g.total ? `decision ${k + 1} of ${g.total}` : `end (after ${g.total} decisions)`;
  $("pos").dataset.k = String(k);
  const d = g.decisions[k];
  $("decision-line").replaceChildren(d
    ? h("span", null, "next: ", seatMark(d.seat, seatName(g.seats, d.seat)), " ", h("b", {"data-testid": "decision-name", text: d.name}),
      h("span", {class: "muted", text: ` (${d.phase || "-"}, round ${d.round})`}),
      d.change.length ? h("div", {class: "chg", "data-testid": "decision-change", text: d.change.join(" · ")}) : null)
    : h("span", {class: "muted", text: g.finished ? "the game is over" : "the record ends here (unfinished game)"}));
  for (const li of $("dec-list").querySelectorAll("li.cur")) li.classList.remove("cur");
  const li = $("dec-list").querySelector(`li[data-k="${k}"]`);
  if (li) { li.classList.add("cur"); li.scrollIntoView({block: "nearest"}); }
  if (location.hash !== fragmentFor(k)) history.replaceState(null, "", fragmentFor(k));
  const seq = ++S.frameSeq;
  const where = `${S.log}:${S.gameId}`;
  const fr = await api(`/api/logs/${S.log}/games/${S.gameId}/frames/${k}?seat=${viewParam()}`);
  if (seq !== S.frameSeq) return;
  renderTableFrame(fr, g.seats, $("table"));
  $("table").dataset.k = String(k);
  $("table").dataset.game = where;
}

function showTableLive(snap) {
  S.live = snap;
  $("setup").hidden = true;
  $("live").hidden = false;
  const names = snap.seats.map((s) => seatName(snap.seats, s.seat));
  $("live-title").textContent = `Live game · ${snap.title} · ${snap.seats.length} players · you are ${names[snap.human_seat]}` +
    (snap.deal_seed !== null ? ` · deal seed ${snap.deal_seed}` : "");
  const b = snap.frame.board;
  const turn = $("live-turn");
  if (snap.over) turn.textContent = "The game is over.";
  else turn.textContent = snap.your_turn ? `Your turn${b ? ` (${b.phase_name})` : ""}: choose one of ${snap.choices.length} (or press its number)` : "waiting…";
  $("choices").replaceChildren(...snap.choices.map((c, i) => h("button", {type: "button", "data-action": c.action, title: c.name,
    onclick: () => liveAct(c.action)}, h("b", {text: `${i + 1}.`}), " ", c.label)));
  renderTableFrame(snap.frame, snap.seats, $("live-table"));
  $("live-table").dataset.k = String(snap.decision);
  $("live-chart-box").hidden = true;
  const decs = $("live-decs");
  decs.replaceChildren(...snap.decisions.map((d) => entryItem(d, null)));
  if (decs.lastChild) decs.lastChild.scrollIntoView({block: "nearest"});
  const end = $("live-end");
  end.hidden = !snap.over && !snap.problems.length;
  end.replaceChildren();
  if (snap.problems.length) end.append(h("div", null, snap.problems.map((p) => h("div", {text: p}))));
  if (snap.over && snap.record) {
    end.append(h("div", null, `Record saved: ${snap.record} `,
      h("button", {type: "button", "data-testid": "open-replay", onclick: () => openSaved(snap.record)}, "Open as replay")));
  }
}

function onChoiceKey(ev) {
  // 1-9 picks that move of a game other than Last Will on the Play tab
  if ($("play-pane").hidden || !S.live || !isTableGame(S.live.game) || !S.live.your_turn) return;
  const t = ev.target;
  if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA")) return;
  if (!/^[1-9]$/.test(ev.key)) return;
  const b = $("choices").querySelectorAll("button")[Number(ev.key) - 1];
  if (b && !b.disabled) { ev.preventDefault(); b.click(); }
}

function setupGame() {
  // the Play tab's game: its player counts, its setup fields and its players
  const info = gameInfo($("setup-game").value);
  const nsel = $("setup-n");
  const keep = Number(nsel.value);
  if (S.setupGame !== info.name) {
    const n = info.player_counts.includes(keep) ? keep : info.default_players;
    nsel.replaceChildren(...info.player_counts.map((c) => h("option", {value: c, text: c})));
    nsel.value = String(n);
    $("setup-seats").replaceChildren();  // another game: its own players
    S.setupGame = info.name;
  }
  for (const el of document.querySelectorAll("#setup [data-option]")) el.hidden = !info.options.includes(el.dataset.option);
  for (const el of document.querySelectorAll("#setup [data-for-game]")) {
    el.hidden = (el.dataset.forGame === LASTWILL) !== !isTableGame(info.name);
  }
  setupSeats();
}

// ------------------------------------------------------------------------------------------
// live play

// the opponents before anyone changes them: the strongest players (the server's list)
function defaultOpponents() {
  if (isTableGame(S.setupGame)) return gameInfo(S.setupGame).default_opponents;
  const d = (S.meta && S.meta.default_opponents) || [];
  return d.length ? d : ["sprinter", "racer"];
}

// the players a seat may take (the server's list: the person, the bots, the lab's policies,
// the search players at their default budgets); "custom" opens a box for any other spec
const CUSTOM = "custom";

function seatSpec(i) {
  const sel = $(`seat-${i}`);
  if (!sel) return undefined;
  return sel.value === CUSTOM ? $(`seat-${i}-custom`).value.trim() : sel.value;
}

function seatRow(i, value, choices) {
  const groups = {you: "you", bots: "bots", policies: "policies", search: "search players"};
  const known = choices.some((c) => c.spec === value);
  const sel = h("select", {id: `seat-${i}`, "data-testid": "seat-spec", "data-seat": i},
    Object.entries(groups).map(([g, label]) => h("optgroup", {label},
      choices.filter((c) => c.group === g).map((c) => h("option", {value: c.spec, title: c.label, text: c.label})))),
    h("option", {value: CUSTOM, text: "custom spec…"}));
  sel.value = known ? value : CUSTOM;
  const box = h("input", {id: `seat-${i}-custom`, "data-testid": "seat-custom", value: known ? "" : value,
    placeholder: "a player spec, e.g. greedy:eps=0.1", autocomplete: "off", "aria-label": `seat ${i} spec`});
  box.hidden = sel.value !== CUSTOM;
  sel.addEventListener("change", () => { box.hidden = sel.value !== CUSTOM; if (!box.hidden) box.focus(); });
  return h("div", {class: "seat-row"}, h("label", {for: `seat-${i}`, text: `Seat ${i}`}), sel, box);
}

function setupSeats() {
  const n = Number($("setup-n").value);
  const box = $("setup-seats");
  const old = [...box.querySelectorAll(".seat-row select")].map((_, i) => seatSpec(i));
  const choices = (isTableGame(S.setupGame) ? gameInfo(S.setupGame).seat_choices : S.meta.seat_choices) || [];
  const opp = defaultOpponents();
  box.replaceChildren(...Array.from({length: n}, (_, i) =>
    seatRow(i, old[i] !== undefined ? old[i] : (i === 0 ? "human" : opp[(i - 1) % opp.length]), choices)));
}

async function startLive(ev) {
  ev.preventDefault();
  const seats = [...$("setup-seats").querySelectorAll(".seat-row select")].map((_, i) => seatSpec(i));
  const seed = $("setup-seed").value.trim();
  let body;
  if (isTableGame(S.setupGame)) {
    body = {game: S.setupGame, seats, seed: seed === "" ? null : Number(seed)};
  } else {
    body = {seats, board_spaces: Number($("setup-spaces").value)};
    body.seed = seed === "" ? null : Number(seed);
    const m = $("setup-money").value;
    body.starting_money = /^\d+$/.test(m) ? Number(m) : m;
  }
  status("dealing…");
  try {
    showLive(await api("/api/live", body));
    status("");
  } catch (e) { fail(e); }
}

function showLive(snap) {
  if (isTableGame(snap.game)) { showTableLive(snap); return; }
  $("live-chart-box").hidden = false;
  S.live = snap;
  $("setup").hidden = true;
  $("live").hidden = false;
  const names = snap.seats.map((s) => seatName(snap.seats, s.seat));
  $("live-title").textContent = `Live game · ${snap.seats.length} players · deal seed ${snap.deal_seed} · you are ${names[snap.human_seat]}`;
  const turn = $("live-turn");
  if (snap.over) turn.textContent = "The game is over.";
  else turn.textContent = snap.your_turn ? `Your turn (${snap.frame.phase_name}): choose one of ${snap.choices.length}` : "waiting…";
  $("choices").replaceChildren(...snap.choices.map((c) => h("button", {type: "button", "data-action": c.action, title: c.name,
    onclick: () => liveAct(c.action)}, c.label)));
  renderTable(snap.frame, snap.seats, $("live-table"));
  $("live-table").dataset.k = String(snap.decision);
  renderChart($("live-chart"), snap.money, snap.seats.map((s) => `P${s.seat}`), snap.decision, null, null);
  const decs = $("live-decs");
  decs.replaceChildren(...snap.decisions.map((d) => h("li", {"data-k": d.k, value: d.k + 1}, h("span", {class: "r", text: `R${d.round}`}), seatMark(d.seat), " ", d.name)));
  if (decs.lastChild) decs.lastChild.scrollIntoView({block: "nearest"});
  const end = $("live-end");
  end.hidden = !snap.over && !snap.problems.length;
  end.replaceChildren();
  if (snap.problems.length) end.append(h("div", null, snap.problems.map((p) => h("div", {text: p}))));
  if (snap.over) {
    end.append(h("div", null, `Record saved: ${snap.record} `,
      h("button", {type: "button", "data-testid": "open-replay", onclick: () => openSaved(snap.record)}, "Open as replay")));
  }
}

async function liveAct(action) {
  const snap = S.live;
  for (const b of $("choices").querySelectorAll("button")) b.disabled = true;
  status("the others are playing…");
  try {
    showLive(await api(`/api/live/${snap.id}/act`, {action, decision: snap.decision}));
    status("");
  } catch (e) {
    fail(e);
    try { showLive(await api(`/api/live/${snap.id}`)); } catch (e2) { /* keep the message */ }
  }
}

async function saveLive(ev) {
  ev.preventDefault();
  if (!S.live) return;
  const name = $("save-name").value.trim();
  try {
    const out = await api(`/api/live/${S.live.id}/save`, name ? {name} : {});
    await refreshLogs();
    status(`saved to ${out.path}`);
    const end = $("live-end");
    end.hidden = false;
    end.append(h("div", null, `Saved: ${out.path} `,
      h("button", {type: "button", onclick: () => openSaved(out.path)}, "Open as replay")));
  } catch (e) { fail(e); }
}

async function refreshLogs() {
  S.logs = (await api("/api/logs")).logs;
  fillLogSelect();
  await fillOpenFiles();
}

async function fillOpenFiles() {
  // the files this server may open (it serves only what it was started with)
  const out = await api("/api/files");
  $("open-files").replaceChildren(...out.files.map((f) => h("option", {value: f.path})));
  $("open-path").title = `files under: ${out.served.join(", ")}`;
}

async function openFirstGame() {
  const first = S.games.find((g) => !g.error);
  if (first) await openGame(first.game);
}

async function openSaved(path) {
  try {
    const info = await api("/api/logs", {path});
    await refreshLogs();
    showTab("replay");
    await openLog(info.id);
    await openFirstGame();
  } catch (e) { fail(e); }
}

async function continuePlay() {
  try {
    const snap = await api("/api/live", {resume: {log: S.log, game: S.gameId}});
    showTab("play");
    showLive(snap);
  } catch (e) { fail(e); }
}

// ------------------------------------------------------------------------------------------
// wiring

function showTab(name) {
  for (const t of document.querySelectorAll("nav .tab")) t.classList.toggle("active", t.dataset.tab === name);
  $("replay-pane").hidden = name !== "replay";
  $("play-pane").hidden = name !== "play";
  $("card-info").hidden = true;
}

function onKey(ev) {
  if (!S.game || $("replay-pane").hidden) return;
  const t = ev.target;
  if (t && (t.tagName === "INPUT" || t.tagName === "SELECT" || t.tagName === "TEXTAREA") && t.id !== "slider") return;
  if (t && t.id === "slider" && (ev.key === "ArrowLeft" || ev.key === "ArrowRight")) return;  // the slider moves itself
  const keys = {
    ArrowRight: () => go(S.k + 1), ArrowLeft: () => go(S.k - 1),
    ArrowDown: nextRound, ArrowUp: prevRound, PageDown: nextRound, PageUp: prevRound,
    Home: () => go(0), End: () => go(S.game.total),
  };
  const f = keys[ev.key];
  if (f) { ev.preventDefault(); f(); }
}

function parseHash() {
  const q = new URLSearchParams(location.hash.slice(1));
  return Object.fromEntries(q.entries());
}

async function main() {
  try {
    await loadMeta();
  } catch (e) { fail(e); return; }
  for (const t of document.querySelectorAll("nav .tab")) t.addEventListener("click", () => showTab(t.dataset.tab));
  $("log-select").addEventListener("change", () => openLog($("log-select").value).then(openFirstGame).catch(fail));
  $("f-entrant").addEventListener("change", () => loadGames().catch(fail));
  $("f-winner").addEventListener("change", () => loadGames().catch(fail));
  $("open-form").addEventListener("submit", async (ev) => {
    ev.preventDefault();
    try {
      const info = await api("/api/logs", {path: $("open-path").value.trim()});
      await refreshLogs();
      await openLog(info.id);
      await openFirstGame();
      status(`opened ${info.path}`);
    } catch (e) { fail(e); }
  });
  $("b-first").addEventListener("click", () => go(0));
  $("b-last").addEventListener("click", () => go(S.game.total));
  $("b-prev").addEventListener("click", () => go(S.k - 1));
  $("b-next").addEventListener("click", () => go(S.k + 1));
  $("b-prev-round").addEventListener("click", prevRound);
  $("b-next-round").addEventListener("click", nextRound);
  $("slider").addEventListener("input", () => go(Number($("slider").value)));
  $("view-seat").addEventListener("change", () => { S.seat = Number($("view-seat").value); loadGame(S.k, true).catch(fail); });
  $("omniscient").addEventListener("change", () => { S.omni = $("omniscient").checked; loadGame(S.k, true).catch(fail); });
  $("continue-play").addEventListener("click", continuePlay);
  document.addEventListener("keydown", onKey);
  document.addEventListener("keydown", onChoiceKey);
  document.addEventListener("click", onCardClick);
  document.addEventListener("keydown", (ev) => {
    if (ev.key === "Escape") $("card-info").hidden = true;
    else if (ev.key === "Enter" && ev.target && ev.target.dataset && ev.target.dataset.cardId) onCardClick(ev);
  });
  $("setup-game").replaceChildren(...(S.meta.games || [{name: LASTWILL, title: "Last Will"}]).map((g) =>
    h("option", {value: g.name, text: g.title})));
  $("setup-game").addEventListener("change", setupGame);
  $("setup-n").addEventListener("change", setupSeats);
  $("setup").addEventListener("submit", startLive);
  $("save-form").addEventListener("submit", saveLive);
  $("live-new").addEventListener("click", () => { $("live").hidden = true; $("setup").hidden = false; S.live = null; });
  setupGame();
  fillOpenFiles().catch(fail);

  fillLogSelect();
  try {
    if (!(await followHash())) status("no log open: open one with the box on the left, or play a game");
  } catch (e) { fail(e); }
  window.addEventListener("hashchange", () => followHash().catch(fail));
}

async function followHash() {
  // Move to what the address's fragment names (#log=L&game=G&seat=S&d=N): on load, and when
  // it is edited in the address bar. False when there is no log to show.
  const hash = parseHash();
  if (hash.tab === "play") showTab("play");
  else if (hash.tab === "replay" || hash.game !== undefined) showTab("replay");
  const logId = hash.log && S.logs.some((l) => l.id === hash.log) ? hash.log
    : (S.log || S.meta.first_log || (S.logs[0] && S.logs[0].id));
  if (!logId) return false;
  if (logId !== S.log) await openLog(logId);
  const row = hash.game !== undefined ? S.games.find((g) => String(g.game) === hash.game && !g.error) : null;
  if (!row) {
    if (S.gameId === null) await openFirstGame();
    return true;
  }
  const omni = hash.seat === "all" ? true : (/^\d$/.test(hash.seat || "") ? false : S.omni);
  const seat = /^\d$/.test(hash.seat || "") && Number(hash.seat) < row.seating.length ? Number(hash.seat) : S.seat;
  const k = hashIndex(hash, row.decisions);
  if (row.game !== S.gameId || omni !== S.omni || (!omni && seat !== S.seat) || !S.game) {
    S.gameId = row.game;
    S.omni = omni;
    S.seat = seat;
    await loadGame(k === null ? 0 : k);
    for (const tr of $("game-list").querySelectorAll("tr.game")) tr.classList.toggle("sel", Number(tr.dataset.game) === row.game);
  } else if (k !== null && k !== S.k) {
    await step(k);
  }
  return true;
}

document.addEventListener("DOMContentLoaded", main);
