// neardup's web console: plain DOM over the HTTP/JSON API (docs/http.md).
// Texts from the server are only ever set as textContent, never as HTML.
'use strict';

const $ = (id) => document.getElementById(id);
const TOKEN_KEY = 'neardup-token';

// ---- API ------------------------------------------------------------------

async function api(method, path, body) {
  const headers = {};
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (token) headers.Authorization = 'Bearer ' + token;
  const init = {method, headers};
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  let json = null;
  try { json = text ? JSON.parse(text) : {}; } catch (e) { json = null; }
  if (!response.ok) {
    const message = json && json.message ? json.message : text;
    const error = new Error(response.status + ' ' +
                            (json && json.status ? json.status + ': ' : '') +
                            message);
    error.httpStatus = response.status;
    throw error;
  }
  return json;
}

const collectionPath = (name) => '/v1/collections/' + encodeURIComponent(name);
const documentPath = (collection, id) =>
    collectionPath(collection) + '/documents/' + encodeURIComponent(id);

// proto3 JSON carries bytes (texts) as base64.
function toBase64(bytes) {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode.apply(null, bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}
function fromBase64(text) {
  const binary = atob(text || '');
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; ++i) bytes[i] = binary.charCodeAt(i);
  return bytes;
}
const utf8 = (text) => new TextEncoder().encode(text);
const decode = (bytes) => new TextDecoder().decode(bytes);

// ---- helpers ----------------------------------------------------------------

function element(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes || {})) {
    if (name === 'text') node.textContent = value;
    else node.setAttribute(name, value);
  }
  for (const child of children) {
    if (child !== null && child !== undefined) {
      node.append(child instanceof Node ? child : String(child));
    }
  }
  return node;
}

function setStatus(message, isError) {
  const status = $('status');
  status.textContent = message || '';
  status.className = isError ? 'error' : '';
}

async function run(work) {
  setStatus('Working…');
  try {
    await work();
    if ($('status').textContent === 'Working…') setStatus('');
  } catch (error) {
    setStatus(error.message, true);
  }
}

const fixed = (value, digits) =>
    value === undefined || value === null ? '—' : Number(value).toFixed(digits);

// `bytes` with the byte ranges [begin, end) marked; the ranges are word
// boundaries, so each piece decodes as UTF-8 on its own.
function highlighted(bytes, ranges, side) {
  const block = element('pre', {class: 'text', 'data-side': side});
  const sorted = ranges.map(([b, e]) => [Number(b), Number(e)])
                     .filter(([b, e]) => e > b)
                     .sort((x, y) => x[0] - y[0]);
  let at = 0;
  for (const [begin, end] of sorted) {
    if (begin < at) continue;  // overlapping: the earlier one is shown
    block.append(decode(bytes.subarray(at, begin)));
    block.append(element('mark', {text: decode(bytes.subarray(begin, end))}));
    at = end;
  }
  block.append(decode(bytes.subarray(at)));
  return block;
}

function sideBySide(leftTitle, left, rightTitle, right) {
  return element('div', {class: 'pair'},
                 element('div', {}, element('h4', {text: leftTitle}), left),
                 element('div', {}, element('h4', {text: rightTitle}), right));
}

function facts(pairs) {
  const list = element('dl', {class: 'facts'});
  for (const [name, value] of pairs) {
    list.append(element('dt', {text: name}), element('dd', {text: value}));
  }
  return list;
}

function tlshOf(kept) {
  const entry = (kept || []).find((k) => k.family === 'tlsh');
  return entry ? String(entry.distance) : '—';
}

// ---- collections --------------------------------------------------------------

let collections = [];

async function loadCollections() {
  const listed = await api('GET', '/v1/collections');
  collections = listed.collections || [];
  for (const id of ['search-collection', 'document-collection']) {
    const select = $(id);
    const chosen = select.value;
    select.replaceChildren(...collections.map(
        (c) => element('option', {value: c.name, text: c.name})));
    if (collections.some((c) => c.name === chosen)) select.value = chosen;
  }
  return collections;
}

function configSummary(config) {
  const parts = [
    'threshold ' + fixed(config.threshold, 2),
    config.numPerm + ' permutations',
    config.shingleK + '-word shingles',
    (config.verification || '').replace('VERIFICATION_', '').toLowerCase() +
        ' verification',
  ];
  if (config.simhash) parts.push('SimHash');
  if ((config.keptFamilies || []).length) {
    parts.push('keeps ' + config.keptFamilies.join(', '));
  }
  if (config.storeText) parts.push('stores text');
  return parts.join(' · ');
}

async function showCollections() {
  const [listed, stats] = await Promise.all([loadCollections(),
                                             api('GET', '/v1/stats')]);
  const byName = new Map((stats.collections || []).map((s) => [s.name, s]));
  const body = $('collections-table').tBodies[0];
  body.replaceChildren();
  for (const collection of listed) {
    const s = byName.get(collection.name) || {};
    const count = Number(s.documentCount || collection.documentCount || 0);
    const perDocument = count > 0 ? Math.round(Number(s.indexBytes) / count) : 0;
    body.append(element('tr', {'data-collection': collection.name},
        element('td', {}, element('a', {
          href: '#/search?collection=' + encodeURIComponent(collection.name),
          text: collection.name})),
        element('td', {class: 'number', text: String(count)}),
        element('td', {class: 'number',
                       text: count > 0 ? perDocument + ' B (index)' : '—'}),
        element('td', {text: configSummary(collection.config || {})}),
        element('td', {text: 'serving'})));
  }
  for (const bad of stats.quarantined || []) {
    body.append(element('tr', {class: 'bad'},
        element('td', {text: bad.name}), element('td', {text: '—'}),
        element('td', {text: '—'}), element('td', {text: '—'}),
        element('td', {text: 'quarantined: ' + bad.reason})));
  }
  if (!listed.length && !(stats.quarantined || []).length) {
    body.append(element('tr', {}, element('td', {colspan: '5',
        text: 'No collections yet: create one below.'})));
  }
  const free = Number(stats.diskAvailableBytes || 0);
  setStatus(stats.diskFull ? 'Disk full: ' + stats.diskFullReason
                           : 'Store: ' + Math.round(Number(stats.storeLiveBytes) / 1024) +
                                 ' KiB live, ' + Math.round(free / (1 << 20)) +
                                 ' MiB free on disk',
            stats.diskFull);
}

async function createCollection(event) {
  event.preventDefault();
  await run(async () => {
    const name = $('create-name').value.trim();
    const config = {threshold: Number($('create-threshold').value),
                    storeText: $('create-store-text').checked};
    if ($('create-tlsh').checked) config.keptFamilies = ['tlsh'];
    await api('POST', '/v1/collections', {name, config});
    await showCollections();
    setStatus('Created ' + name + '.');
  });
}

// ---- search -------------------------------------------------------------------

const CONTENT_TYPES = {html: 'text/html', htm: 'text/html', md: 'text/markdown',
                       markdown: 'text/markdown', pdf: 'application/pdf'};

async function probeFromForm() {
  const file = $('search-file').files[0];
  if (file) {
    const extension = file.name.split('.').pop().toLowerCase();
    const bytes = new Uint8Array(await file.arrayBuffer());
    return {bytes, contentType: CONTENT_TYPES[extension] || 'text/plain',
            name: file.name};
  }
  return {bytes: utf8($('search-text').value), contentType: 'text/plain',
          name: 'your text'};
}

async function search(event) {
  event.preventDefault();
  await run(async () => {
    const collection = $('search-collection').value;
    const probe = await probeFromForm();
    if (!probe.bytes.length) throw new Error('Give a text or a file.');
    const request = {text: toBase64(probe.bytes), explain: true,
                     includeMetadata: true,
                     topK: Number($('search-top-k').value) || 10};
    if (probe.contentType !== 'text/plain') request.contentType = probe.contentType;
    if ($('search-threshold').value) {
      request.threshold = Number($('search-threshold').value);
    }
    const started = performance.now();
    const answer = await api('POST', collectionPath(collection) +
                                         '/documents:query', request);
    const stored = await Promise.all((answer.matches || []).map(
        (m) => api('GET', documentPath(collection, m.id)).catch(() => null)));
    const took = performance.now() - started;
    const results = $('search-results');
    results.replaceChildren(element('p', {class: 'summary',
        text: (answer.matches || []).length +
              ((answer.matches || []).length === 1 ? ' match' : ' matches') +
              ' among ' +
              answer.candidates + ' candidates (' + took.toFixed(0) + ' ms)'}));
    (answer.matches || []).forEach((match, i) => {
      const passages = match.passages || [];
      const storedBytes = stored[i] ? fromBase64(stored[i].text) : new Uint8Array();
      const card = element('article', {class: 'match', 'data-id': match.id},
          element('h3', {}, element('a', {
            href: '#/document?collection=' + encodeURIComponent(collection) +
                  '&id=' + encodeURIComponent(match.id),
            text: match.id})),
          facts([['Similarity', fixed(match.similarity, 3)],
                 ['Exact Jaccard', fixed(match.exactJaccard, 3)],
                 ['Estimated Jaccard', fixed(match.estimatedJaccard, 3)],
                 ['TLSH distance', tlshOf(match.keptDistances)],
                 ['Shared passages', passages.length +
                      (match.passagesTruncated ? ' (truncated)' : '')]]));
      if (match.explainUnavailable) {
        card.append(element('p', {class: 'hint', text: match.explainUnavailable}));
      }
      const probeSide = probe.contentType === 'text/plain'
          ? highlighted(probe.bytes, passages.map((p) => [p.probeBegin, p.probeEnd]),
                        'probe')
          : element('p', {class: 'hint',
                          text: probe.name + ' was turned into text by the server; ' +
                                'its passages are marked on the stored side.'});
      const storedSide = storedBytes.length
          ? highlighted(storedBytes, passages.map((p) => [p.matchBegin, p.matchEnd]),
                        'stored')
          : element('p', {class: 'hint',
                          text: 'The collection does not store text.'});
      card.append(sideBySide(probe.name, probeSide, 'stored ' + match.id,
                             storedSide));
      results.append(card);
    });
  });
}

// ---- compare ------------------------------------------------------------------

async function compare(event) {
  event.preventDefault();
  await run(async () => {
    const a = utf8($('compare-a').value);
    const b = utf8($('compare-b').value);
    const answer = await api('POST', '/v1:compare', {
      a: toBase64(a), b: toBase64(b), explain: true,
      kind: 'FINGERPRINT_KIND_TLSH', config: {simhash: true}});
    const passages = answer.passages || [];
    $('compare-results').replaceChildren(
        facts([['Estimated Jaccard', fixed(answer.estimatedJaccard, 3)],
               ['Exact Jaccard', fixed(answer.exactJaccard, 3)],
               ['SimHash distance', String(answer.hammingDistance)],
               ['TLSH distance', answer.tlshDistance === undefined
                    ? (answer.tlshUnavailable || '—') : String(answer.tlshDistance)],
               ['Shared passages', passages.length +
                    (answer.passagesTruncated ? ' (truncated)' : '')]]),
        sideBySide('A', highlighted(a, passages.map((p) => [p.probeBegin, p.probeEnd]), 'a'),
                   'B', highlighted(b, passages.map((p) => [p.matchBegin, p.matchEnd]), 'b')));
  });
}

// ---- documents ----------------------------------------------------------------

async function showDocument(collection, id) {
  const view = $('document-view');
  const document_ = await api('GET', documentPath(collection, id));
  const micros = (value) => value && value !== '0'
      ? new Date(Number(value) / 1000).toISOString() : '—';
  const metadata = Object.entries(document_.metadata || {})
                       .map(([k, v]) => k + '=' + v).join(', ');
  const remove = element('button', {type: 'button', id: 'delete-button',
                                    text: 'Delete'});
  remove.addEventListener('click', () => run(async () => {
    if (!confirm('Delete document "' + id + '" from ' + collection + '?')) return;
    await api('DELETE', documentPath(collection, id));
    view.replaceChildren();
    setStatus('Deleted ' + id + '.');
  }));
  const text = fromBase64(document_.text);
  view.replaceChildren(
      facts([['Id', document_.id], ['Metadata', metadata || '—'],
             ['Created', micros(document_.createdUnixMicros)],
             ['Updated', micros(document_.updatedUnixMicros)],
             ['Text bytes', String(text.length)]]),
      text.length ? element('pre', {class: 'text', text: decode(text)})
                  : element('p', {class: 'hint',
                                  text: 'The collection does not store text.'}),
      remove);
}

async function getDocument(event) {
  event.preventDefault();
  await run(() => showDocument($('document-collection').value,
                               $('document-id').value));
}

async function putDocument(event) {
  event.preventDefault();
  await run(async () => {
    const collection = $('document-collection').value;
    const id = $('put-id').value;
    const answer = await api('PUT', documentPath(collection, id),
                             {text: toBase64(utf8($('put-text').value))});
    setStatus((answer.replaced ? 'Replaced ' : 'Added ') + id + ' in ' +
              collection + '.');
  });
}

// ---- pages --------------------------------------------------------------------

const PAGES = ['collections', 'search', 'compare', 'document'];

async function route() {
  const [page, query] = (location.hash.replace(/^#\//, '') || 'collections').split('?');
  const name = PAGES.includes(page) ? page : 'collections';
  const params = new URLSearchParams(query || '');
  for (const p of PAGES) {
    $('page-' + p).hidden = p !== name;
    $('nav-' + p).setAttribute('aria-current', p === name ? 'page' : 'false');
  }
  document.title = 'neardup · ' + name;
  await run(async () => {
    if (name === 'collections') return showCollections();
    await loadCollections();
    if (params.get('collection')) {
      $('search-collection').value = params.get('collection');
      $('document-collection').value = params.get('collection');
    }
    if (name === 'document' && params.get('id')) {
      $('document-id').value = params.get('id');
      await showDocument(params.get('collection'), params.get('id'));
    }
  });
}

function start() {
  const token = $('token');
  token.value = sessionStorage.getItem(TOKEN_KEY) || '';
  token.addEventListener('change', () => {
    if (token.value) sessionStorage.setItem(TOKEN_KEY, token.value);
    else sessionStorage.removeItem(TOKEN_KEY);
    route();
  });
  $('create-form').addEventListener('submit', createCollection);
  $('search-form').addEventListener('submit', search);
  $('compare-form').addEventListener('submit', compare);
  $('document-form').addEventListener('submit', getDocument);
  $('put-form').addEventListener('submit', putDocument);
  // Files may be dropped on the search text too.
  const area = $('search-text');
  area.addEventListener('dragover', (e) => e.preventDefault());
  area.addEventListener('drop', (e) => {
    e.preventDefault();
    if (e.dataTransfer.files.length) $('search-file').files = e.dataTransfer.files;
  });
  window.addEventListener('hashchange', route);
  route();
}

document.addEventListener('DOMContentLoaded', start);
