// A form built from a tool's input schema (draft 2020-12, as hands writes
// it). Each value of the arguments is a widget: it renders its fields,
// reads its value (undefined when absent), fills itself from a value, and
// shows the issues whose JSON Pointer leads to it.

let nextID = 0;
const newID = () => "f" + (++nextID);

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") e.className = v;
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c) e.append(c);
  return e;
}

// buildForm returns the widget of the root object of schema.
export function buildForm(schema) {
  const ctx = { root: schema };
  return objectWidget(ctx, schema || {}, "", { required: true, root: true });
}

// resolve follows $ref within the root schema.
function resolve(ctx, s) {
  for (let i = 0; s && typeof s === "object" && s.$ref && i < 32; i++) {
    const ref = s.$ref;
    if (!ref.startsWith("#")) break;
    let t = ctx.root;
    for (const tok of ref.slice(1).split("/").filter(Boolean)) {
      t = t?.[tok.replace(/~1/g, "/").replace(/~0/g, "~")];
    }
    if (!t) break;
    const { $ref, ...rest } = s;
    s = { ...t, ...rest };
  }
  return s === true || s === undefined ? {} : s;
}

// shape reads what kind of field a schema needs: its one non-null type
// and whether null is allowed.
function shape(ctx, s) {
  s = resolve(ctx, s);
  let types = s.type === undefined ? [] : [].concat(s.type);
  let nullable = types.includes("null");
  types = types.filter(t => t !== "null");
  if (!types.length && Array.isArray(s.anyOf)) {
    const branches = s.anyOf.map(b => resolve(ctx, b));
    const rest = branches.filter(b => b.type !== "null");
    if (rest.length === 1 && rest.length < branches.length) {
      const inner = shape(ctx, rest[0]);
      return { ...inner, schema: { ...inner.schema, description: s.description ?? inner.schema.description, default: s.default ?? inner.schema.default }, nullable: true };
    }
  }
  let type = types.length === 1 ? types[0] : "json";
  if (s.enum || s.const !== undefined) type = "enum";
  if (type === "object" && !s.properties && s.additionalProperties !== false) type = "json";
  return { schema: s, type, nullable };
}

// field builds the widget for one value.
function field(ctx, s, label, opts) {
  const sh = shape(ctx, s);
  switch (sh.type) {
    case "object": return objectWidget(ctx, sh.schema, label, opts);
    case "array": return arrayWidget(ctx, sh.schema, label, opts);
    case "enum": return enumWidget(sh.schema, label, opts);
    case "boolean": return booleanWidget(sh.schema, label, opts);
    case "integer":
    case "number": return numberWidget(sh.schema, sh.type, label, opts);
    case "string": return stringWidget(sh.schema, label, opts);
  }
  return jsonWidget(sh.schema, label, opts);
}

// labelled wraps an input with its label, help text and issue list.
function labelled(s, label, opts, input) {
  const id = newID();
  input.id = id;
  const help = s.description ? el("p", { class: "help", id: id + "-help", text: s.description }) : null;
  const issues = el("ul", { class: "issues", id: id + "-issues" });
  input.setAttribute("aria-describedby", [help && help.id, issues.id].filter(Boolean).join(" "));
  if (opts.required) input.setAttribute("aria-required", "true");
  const lab = el("label", { for: id }, label, opts.required ? el("span", { class: "req", text: " *", title: "required" }) : null,
    s.deprecated ? el("span", { class: "badge deprecated", text: "deprecated" }) : null);
  const wrap = el("div", { class: "field" }, lab, input, help, issues);
  return { wrap, issues, input };
}

function issueMethods(w, issues, inputs) {
  w.showIssue = msg => {
    issues.append(el("li", { text: msg }));
    for (const i of inputs()) i.setAttribute("aria-invalid", "true");
  };
  w.clearIssues = () => {
    issues.replaceChildren();
    for (const i of inputs()) i.removeAttribute("aria-invalid");
    for (const c of w.children?.() || []) c.clearIssues();
  };
  return w;
}

function stringWidget(s, label, opts) {
  // A long free text, by its name and its lack of a pattern or format,
  // gets a text area.
  const long = (s.maxLength === undefined || s.maxLength > 200) && !s.pattern && !s.format;
  const input = long && /^(content|text|body|markdown|html|prompt|message|instructions)$/i.test(label) ? el("textarea", { rows: 4 }) : el("input", { type: "text" });
  if (s.maxLength !== undefined) input.setAttribute("maxlength", s.maxLength);
  if (s.format) input.setAttribute("placeholder", s.format);
  else if (s.pattern) input.setAttribute("placeholder", s.pattern);
  const { wrap, issues } = labelled(s, label, opts, input);
  const w = {
    el: wrap,
    value: () => input.value === "" && !opts.required ? undefined : input.value,
    set: v => { input.value = v === undefined || v === null ? "" : String(v); },
    child: () => null,
  };
  if (typeof s.default === "string") input.value = s.default;
  return issueMethods(w, issues, () => [input]);
}

function numberWidget(s, type, label, opts) {
  const input = el("input", { type: "number", step: type === "integer" ? "1" : "any", min: s.minimum, max: s.maximum, inputmode: type === "integer" ? "numeric" : "decimal" });
  const { wrap, issues } = labelled(s, label, opts, input);
  const w = {
    el: wrap,
    value: () => input.value === "" ? undefined : Number(input.value),
    set: v => { input.value = typeof v === "number" ? String(v) : ""; },
    child: () => null,
  };
  if (typeof s.default === "number") input.value = String(s.default);
  return issueMethods(w, issues, () => [input]);
}

function booleanWidget(s, label, opts) {
  if (opts.required) {
    const input = el("input", { type: "checkbox" });
    const { wrap, issues } = labelled(s, label, opts, input);
    wrap.classList.add("check");
    input.checked = s.default === true;
    const w = { el: wrap, value: () => input.checked, set: v => { input.checked = v === true; }, child: () => null };
    return issueMethods(w, issues, () => [input]);
  }
  const input = el("select", {}, el("option", { value: "", text: "(not set)" }), el("option", { value: "true", text: "true" }), el("option", { value: "false", text: "false" }));
  const { wrap, issues } = labelled(s, label, opts, input);
  if (typeof s.default === "boolean") input.value = String(s.default);
  const w = {
    el: wrap,
    value: () => input.value === "" ? undefined : input.value === "true",
    set: v => { input.value = typeof v === "boolean" ? String(v) : ""; },
    child: () => null,
  };
  return issueMethods(w, issues, () => [input]);
}

function enumWidget(s, label, opts) {
  const values = s.enum ?? [s.const];
  const input = el("select");
  if (!opts.required || s.default === undefined) input.append(el("option", { value: "", text: opts.required ? "(choose one)" : "(not set)" }));
  values.forEach((v, i) => input.append(el("option", { value: String(i), text: typeof v === "string" ? v : JSON.stringify(v) })));
  const { wrap, issues } = labelled(s, label, opts, input);
  const index = v => values.findIndex(x => JSON.stringify(x) === JSON.stringify(v));
  if (s.default !== undefined && index(s.default) >= 0) input.value = String(index(s.default));
  else if (values.length === 1 && opts.required) input.value = "0";
  const w = {
    el: wrap,
    value: () => input.value === "" ? undefined : values[Number(input.value)],
    set: v => { const i = index(v); input.value = i >= 0 ? String(i) : ""; },
    child: () => null,
  };
  return issueMethods(w, issues, () => [input]);
}

// jsonWidget takes any JSON value as text: values of any type, maps,
// unions.
function jsonWidget(s, label, opts) {
  const input = el("textarea", { rows: 3, spellcheck: "false", placeholder: "JSON" , class: "json" });
  const { wrap, issues } = labelled(s, label, opts, input);
  if (s.default !== undefined) input.value = JSON.stringify(s.default);
  const w = {
    el: wrap,
    value: () => {
      if (input.value.trim() === "") return undefined;
      try {
        return JSON.parse(input.value);
      } catch (e) {
        throw new FieldError(w, "not JSON: " + e.message);
      }
    },
    set: v => { input.value = v === undefined ? "" : JSON.stringify(v); },
    child: () => null,
  };
  return issueMethods(w, issues, () => [input]);
}

// A FieldError is a value the form cannot read, at its field.
export class FieldError extends Error {
  constructor(widget, message) {
    super(message);
    this.widget = widget;
  }
}

function objectWidget(ctx, s, label, opts) {
  const props = s.properties || {};
  const required = new Set(s.required || []);
  const box = el("div", { class: "object" });
  let fieldset, issues, include = null;
  if (opts.root) {
    fieldset = box;
    issues = el("ul", { class: "issues" });
    box.append(issues);
  } else {
    const legend = el("legend", {}, label, opts.required ? el("span", { class: "req", text: " *", title: "required" }) : null);
    fieldset = el("fieldset", { class: "object" }, legend);
    if (s.description) fieldset.append(el("p", { class: "help", text: s.description }));
    issues = el("ul", { class: "issues" });
    fieldset.append(issues);
    if (!opts.required) {
      const id = newID();
      include = el("input", { type: "checkbox", id });
      fieldset.append(el("div", { class: "field check" }, el("label", { for: id, text: "Include " + label }), include));
      include.addEventListener("change", () => { box.hidden = !include.checked; });
      box.hidden = true;
    }
    fieldset.append(box);
  }
  const children = new Map();
  for (const [name, ps] of Object.entries(props)) {
    const w = field(ctx, ps, name, { required: required.has(name) });
    children.set(name, w);
    box.append(w.el);
  }
  if (!Object.keys(props).length && opts.root) {
    box.append(el("p", { class: "help", text: s.additionalProperties === false ? "This tool takes no arguments." : "The schema names no properties; send the arguments as JSON." }));
  }
  const w = {
    el: opts.root ? box : fieldset,
    schema: s,
    value: () => {
      if (include && !include.checked) return undefined;
      const out = {};
      for (const [name, c] of children) {
        const v = c.value();
        if (v !== undefined) out[name] = v;
      }
      return out;
    },
    set: v => {
      const obj = v && typeof v === "object" && !Array.isArray(v) ? v : null;
      if (include) { include.checked = obj !== null; box.hidden = !include.checked; }
      for (const [name, c] of children) c.set(obj ? obj[name] : undefined);
    },
    child: tok => children.get(tok) || null,
    children: () => [...children.values()],
    // missing returns the widgets of the required properties that have no
    // value, in the order of the schema.
    missing: () => [...children].filter(([name, c]) => required.has(name) && safeValue(c) === undefined).map(([, c]) => c),
    // missingIn returns the widgets of the required properties that obj,
    // the value sent for this object, lacks, in the order of the schema.
    missingIn: obj => [...children].filter(([name]) => required.has(name) && !(obj && typeof obj === "object" && Object.hasOwn(obj, name))).map(([, c]) => c),
    issuesElement: issues,
  };
  return issueMethods(w, issues, () => []);
}

function safeValue(w) {
  try { return w.value(); } catch { return null; }
}

function arrayWidget(ctx, s, label, opts) {
  const legend = el("legend", {}, label, opts.required ? el("span", { class: "req", text: " *", title: "required" }) : null);
  const fieldset = el("fieldset", { class: "array" }, legend);
  if (s.description) fieldset.append(el("p", { class: "help", text: s.description }));
  const issues = el("ul", { class: "issues" });
  const list = el("ol", { class: "items" });
  const add = el("button", { type: "button", class: "add", text: "Add " + label + " item" });
  fieldset.append(issues, list, add);
  let items = [];
  const render = () => {
    list.replaceChildren();
    items.forEach((item, i) => {
      const remove = el("button", { type: "button", class: "remove", text: "Remove", "aria-label": `Remove ${label} item ${i + 1}` });
      remove.addEventListener("click", () => {
        items.splice(i, 1);
        render();
        add.focus();
      });
      // Keep the item's label in step with its place.
      const caption = item.el.querySelector(":scope > legend, :scope > label");
      if (caption?.firstChild?.nodeType === Node.TEXT_NODE) caption.firstChild.textContent = `${label} item ${i + 1}`;
      list.append(el("li", {}, item.el, remove));
    });
  };
  const addItem = v => {
    const w = field(ctx, s.items ?? {}, `${label} item ${items.length + 1}`, { required: true });
    if (v !== undefined) w.set(v);
    items.push(w);
    return w;
  };
  add.addEventListener("click", () => {
    const w = addItem();
    render();
    w.el.querySelector("input, select, textarea")?.focus();
  });
  if (Array.isArray(s.default)) { s.default.forEach(addItem); render(); }
  const w = {
    el: fieldset,
    value: () => items.length === 0 && !opts.required ? undefined : items.map(i => i.value()),
    set: v => { items = []; if (Array.isArray(v)) v.forEach(addItem); render(); },
    child: tok => items[Number(tok)] || null,
    children: () => items,
  };
  return issueMethods(w, issues, () => []);
}

// showIssues puts each issue at the widget its path leads to; an issue
// whose path goes past the form, such as an unknown property, is shown at
// the deepest widget on its way. A missing required property is reported
// at its object; it is shown at the property's field when the form can
// tell which one it is: from sent, the arguments the call sent, when it is
// given, and otherwise from the form's values. It returns the number of
// issues shown at a field below the root.
export function showIssues(root, issues, sent) {
  const required = new Map(); // object widget → its missing fields, in order
  let atFields = 0;
  for (const is of issues) {
    let w = root;
    let doc = sent;
    let docFollows = sent !== undefined; // doc is the value sent at w
    const toks = is.path === "" ? [] : is.path.slice(1).split("/").map(t => t.replace(/~1/g, "/").replace(/~0/g, "~"));
    for (const t of toks) {
      const c = w.child(t);
      if (!c) break;
      w = c;
      doc = doc !== null && typeof doc === "object" ? doc[t] : undefined;
    }
    if (is.keyword === "required" && w.missing) {
      if (!required.has(w)) required.set(w, docFollows && w.missingIn ? w.missingIn(doc) : w.missing());
      const next = required.get(w).shift();
      if (next) w = next;
    }
    w.showIssue(is.message);
    if (w !== root) atFields++;
  }
  return atFields;
}
