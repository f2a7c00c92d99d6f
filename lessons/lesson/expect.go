package lesson

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/eoslab/eoslab/engine/trace"
)

// Expect is one predicate on the world: PATH OP VALUE, e.g.
//
//	partitions.orders-0.lso == 3
//	decision.outcome == duplicate
//	consumers.c1.values contains "p1-0"
//	events.fenced >= 1
//
// Paths walk the {"kind":"state"} object of docs/trace.md; an array of
// named things is indexed by name (producers.p1, partitions.orders-0,
// transactions.tx-1, consumers.c1, groups.g1); ".count" is an array's
// length and "*" takes a field from every element. Three roots are not
// in the state: decision (the last produce.decision event), events.KIND
// (how many events of that kind the step produced) and anomalies.NAME
// (how many anomalies of that name the checker found).
type Expect struct {
	Line  int
	Path  []string
	Op    string
	Value any // float64, string, bool, nil or []any
	Text  string
}

var ops = []string{"==", "!=", "<=", ">=", "<", ">", "contains", "!contains"}

// ParseExpect reads one predicate.
func ParseExpect(s string) (Expect, error) {
	e := Expect{Text: s}
	fields := strings.Fields(s)
	if len(fields) < 3 {
		return e, fmt.Errorf("%s: expected PATH OP VALUE, e.g. partitions.orders-0.lso == 3", script.Quote(s))
	}
	e.Path = strings.Split(fields[0], ".")
	for _, seg := range e.Path {
		if seg == "" {
			return e, fmt.Errorf("%s: empty part in path %s", script.Quote(s), script.Quote(fields[0]))
		}
	}
	e.Op = fields[1]
	if !slices.Contains(ops, e.Op) {
		return e, fmt.Errorf("%s: unknown operator %s (operators: %s)", script.Quote(s), script.Quote(e.Op), strings.Join(ops, " "))
	}
	// The value follows the operator, which follows the path: an
	// operator's spelling inside the path (a consumer called "contains")
	// must not be taken for it.
	afterPath := strings.Index(s, fields[0]) + len(fields[0])
	rest := strings.TrimSpace(s[afterPath+strings.Index(s[afterPath:], fields[1])+len(fields[1]):])
	v, err := parseValue(rest)
	if err != nil {
		return e, fmt.Errorf("%s: %v", script.Quote(s), err)
	}
	e.Value = v
	if err := checkPath(e.Path); err != nil {
		return e, err
	}
	return e, nil
}

func parseValue(s string) (any, error) {
	switch {
	case strings.HasPrefix(s, "["):
		if !strings.HasSuffix(s, "]") {
			return nil, fmt.Errorf("list %s is not closed by ]", script.Quote(s))
		}
		out := []any{}
		for _, f := range strings.FieldsFunc(s[1:len(s)-1], func(r rune) bool { return r == ',' || r == ' ' }) {
			v, err := parseValue(f)
			if err != nil {
				return nil, err
			}
			out = append(out, v)
		}
		return out, nil
	case strings.HasPrefix(s, `"`):
		u, err := strconv.Unquote(s)
		if err != nil {
			return nil, fmt.Errorf("bad quoted string %s", script.Quote(s))
		}
		return u, nil
	case s == "true" || s == "false":
		return s == "true", nil
	case s == "null":
		return nil, nil
	}
	if f, err := strconv.ParseFloat(s, 64); err == nil {
		return f, nil
	}
	if strings.ContainsAny(s, " \t") {
		return nil, fmt.Errorf("value %s has spaces: quote it", script.Quote(s))
	}
	return s, nil
}

// The fields each named collection has, for checking paths when a lesson
// is read rather than when it runs.
var fields = map[string][]string{
	"producers":    {"name", "mode", "producer_id", "producer_epoch", "fatal_error", "txn_state"},
	"partitions":   {"partition", "leader", "leader_epoch", "isr", "high_watermark", "last_stable_offset", "lso", "log_start_offset", "log_end_offset", "log", "producers", "aborted", "records", "values", "markers"},
	"transactions": {"transactional_id", "producer_id", "producer_epoch", "state", "partitions", "timeout_ms", "coordinator", "coordinator_epoch", "pending_markers"},
	"consumers":    {"name", "isolation", "group", "positions", "read", "values", "offsets"},
	"groups":       {"group", "committed", "generation", "members"},
	"decision":     {"outcome", "error", "path", "partition", "producer_id", "producer_epoch", "base_sequence", "last_sequence", "record_count", "transactional", "base_offset", "producer", "broker"},
	"diagnoses":    {"name", "partition", "offset", "step", "right", "anomaly"},
}

var roots = []string{"step", "time_ms", "producers", "partitions", "transactions", "consumers", "groups", "effects", "anomalies", "decision", "events",
	"diagnoses", "diagnosed", "misdiagnosed", "undiagnosed", "replay"}

// replayKeys are what a replay says about itself, besides the replayed
// world's state (docs/trace.md).
var replayKeys = []string{"command", "producer", "steps", "errors", "first_error"}

// stateRoots are the roots a replay's state has too: replay.partitions.…
var stateRoots = []string{"step", "time_ms", "producers", "partitions", "transactions", "consumers", "groups", "effects", "anomalies"}

func checkPath(path []string) error {
	root := path[0]
	if !slices.Contains(roots, root) {
		return fmt.Errorf("unknown path %s%s (roots: %s)", script.Quote(strings.Join(path, ".")), suggest(root, roots), strings.Join(roots, ", "))
	}
	switch root {
	case "diagnosed", "undiagnosed":
		if len(path) > 2 {
			return fmt.Errorf("%s.NAME is a count: nothing below it", root)
		}
		if len(path) == 2 && !slices.Contains(script.AnomalyNames, path[1]) {
			return fmt.Errorf("%s: no anomaly %s%s (the checker's names: %s)", root, script.Quote(path[1]), suggest(path[1], script.AnomalyNames), strings.Join(script.AnomalyNames, ", "))
		}
		return nil
	case "misdiagnosed":
		if len(path) > 1 {
			return fmt.Errorf("misdiagnosed is a count: nothing below it")
		}
		return nil
	case "replay":
		if len(path) < 2 {
			return fmt.Errorf("replay needs a field, e.g. replay.anomalies or replay.partitions.orders-0.values")
		}
		if slices.Contains(replayKeys, path[1]) {
			if len(path) > 2 {
				return fmt.Errorf("replay.%s is a value: nothing below it", path[1])
			}
			return nil
		}
		if !slices.Contains(stateRoots, path[1]) {
			all := append(slices.Clone(replayKeys), stateRoots...)
			return fmt.Errorf("replay has no %s%s (a replay has %s)", script.Quote(path[1]), suggest(path[1], all), strings.Join(all, ", "))
		}
		return checkPath(path[1:])
	}
	switch root {
	case "step", "time_ms":
		if len(path) > 1 {
			return fmt.Errorf("%s is a number: nothing below it", root)
		}
	case "events":
		if len(path) < 2 {
			return fmt.Errorf("events needs a kind, e.g. events.produce.decision")
		}
	case "decision":
		if len(path) != 2 {
			return fmt.Errorf("decision needs one field, e.g. decision.outcome")
		}
		if !slices.Contains(fields["decision"], path[1]) {
			return fmt.Errorf("decision has no field %s%s", script.Quote(path[1]), suggest(path[1], fields["decision"]))
		}
	case "effects", "anomalies":
		if len(path) > 2 {
			return fmt.Errorf("%s.NAME is a count: nothing below it", root)
		}
	default:
		if len(path) == 2 && path[1] == "count" {
			return nil
		}
		if len(path) < 3 {
			return fmt.Errorf("%s needs a name and a field, e.g. %s.NAME.%s", root, root, fields[root][1])
		}
		if !slices.Contains(fields[root], path[2]) {
			return fmt.Errorf("%s have no field %s%s", root, script.Quote(path[2]), suggest(path[2], fields[root]))
		}
	}
	return nil
}

// View is what expectations read: the state object, the trace, and the
// index in the trace where the current step began.
type View struct {
	state     map[string]any
	trace     trace.Log
	stepStart int
}

// NewView builds a view of a snapshot.
func NewView(s *sim.Snapshot, tr trace.Log, stepStart int) *View {
	var state map[string]any
	if err := json.Unmarshal(s.StateJSON(), &state); err != nil {
		panic("state JSON does not decode: " + err.Error())
	}
	derive(state)
	if rm, ok := state["replay"].(map[string]any); ok {
		derive(rm)
	}
	return &View{state: state, trace: tr, stepStart: min(stepStart, tr.Len())}
}

// derive adds the convenience fields: a partition's records, values and
// markers; a consumer's values and offsets.
func derive(state map[string]any) {
	for _, p := range asList(state["partitions"]) {
		pm, _ := p.(map[string]any)
		values, markers := []any{}, 0.0
		for _, r := range asList(pm["log"]) {
			rm, _ := r.(map[string]any)
			if rm["control"] == true {
				markers++
				continue
			}
			values = append(values, rm["value"])
		}
		pm["records"], pm["values"], pm["markers"] = float64(len(values)), values, markers
	}
	for _, c := range asList(state["consumers"]) {
		cm, _ := c.(map[string]any)
		values, offsets := []any{}, []any{}
		for _, r := range asList(cm["read"]) {
			rm, _ := r.(map[string]any)
			values = append(values, rm["value"])
			offsets = append(offsets, rm["offset"])
		}
		cm["values"], cm["offsets"] = values, offsets
	}
}

func asList(v any) []any { l, _ := v.([]any); return l }

// nameKeys are the keys that name an element of each collection.
var nameKeys = []string{"name", "partition", "transactional_id", "group"}

// Resolve returns the value a path points to.
func (v *View) Resolve(path []string) (any, error) {
	switch path[0] {
	case "events":
		kind := strings.Join(path[1:], ".")
		n := 0
		for i := v.stepStart; i < v.trace.Len(); i++ {
			if string(v.trace.At(i).Kind) == kind {
				n++
			}
		}
		return float64(n), nil
	case "decision":
		for _, e := range v.trace.Backward() {
			if e.Kind != "produce.decision" {
				continue
			}
			val, ok := e.Get(path[1])
			if !ok {
				return nil, nil
			}
			var out any
			_ = json.Unmarshal([]byte(val.JSON()), &out)
			return out, nil
		}
		return nil, fmt.Errorf("no produce decision yet")
	case "anomalies", "effects":
		return countNamed(v.state[path[0]], path[1:]), nil
	case "diagnosed", "undiagnosed", "misdiagnosed":
		return v.diagnosis(path), nil
	case "diagnoses":
		return walk(orEmpty(v.state["diagnoses"]), path[1:], path[0])
	case "replay":
		rm, ok := v.state["replay"].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("no replay yet (the replay command makes one)")
		}
		if path[1] == "anomalies" || path[1] == "effects" {
			return countNamed(rm[path[1]], path[2:]), nil
		}
		return walk(rm[path[1]], path[2:], "replay."+path[1])
	}
	return walk(v.state[path[0]], path[1:], path[0])
}

// countNamed counts a list's elements, or those named name (an anomaly
// by its name, spelt with _ for spaces; an effect by its application).
func countNamed(list any, rest []string) float64 {
	l := asList(list)
	if len(rest) == 0 || rest[0] == "count" {
		return float64(len(l))
	}
	n := 0
	for _, a := range l {
		am, _ := a.(map[string]any)
		if am["name"] == strings.ReplaceAll(rest[0], "_", " ") || am["app"] == rest[0] {
			n++
		}
	}
	return float64(n)
}

func orEmpty(v any) any {
	if v == nil {
		return []any{}
	}
	return v
}

// diagnosis counts for diagnosed[.NAME] (distinct anomalies named right),
// undiagnosed[.NAME] (anomalies found and not named right yet) and
// misdiagnosed (diagnoses the engine judged wrong).
func (v *View) diagnosis(path []string) float64 {
	named := map[int]bool{}
	wrong := 0
	for _, d := range asList(v.state["diagnoses"]) {
		dm, _ := d.(map[string]any)
		if dm["right"] != true {
			wrong++
			continue
		}
		if i, ok := dm["anomaly"].(float64); ok {
			named[int(i)] = true
		}
	}
	if path[0] == "misdiagnosed" {
		return float64(wrong)
	}
	n := 0
	for i, a := range asList(v.state["anomalies"]) {
		am, _ := a.(map[string]any)
		if len(path) == 2 && am["name"] != strings.ReplaceAll(path[1], "_", " ") {
			continue
		}
		if named[i] == (path[0] == "diagnosed") {
			n++
		}
	}
	return float64(n)
}

func walk(cur any, path []string, at string) (any, error) {
	for i, seg := range path {
		switch c := cur.(type) {
		case []any:
			if seg == "count" {
				cur = float64(len(c))
				continue
			}
			if seg == "*" {
				out := []any{}
				for _, el := range c {
					x, err := walk(el, path[i+1:], at+".*")
					if err != nil {
						return nil, err
					}
					out = append(out, x)
				}
				return out, nil
			}
			if n, err := strconv.Atoi(seg); err == nil {
				if n < 0 || n >= len(c) {
					return nil, fmt.Errorf("%s has %d element(s): no index %d", at, len(c), n)
				}
				cur = c[n]
				at += "." + seg
				continue
			}
			found := false
			for _, el := range c {
				m, _ := el.(map[string]any)
				for _, k := range nameKeys {
					if m[k] == seg {
						cur, found = el, true
						break
					}
				}
				if found {
					break
				}
			}
			if !found {
				return nil, fmt.Errorf("%s has no %s (yet)", at, script.Quote(seg))
			}
		case map[string]any:
			x, ok := c[seg]
			if !ok && seg == "count" && i > 0 && (path[i-1] == "positions" || path[i-1] == "committed") {
				cur = float64(len(c)) // how many partitions it has offsets for
				at += "." + seg
				continue
			}
			if !ok {
				if i > 0 && (path[i-1] == "positions" || path[i-1] == "committed") {
					return nil, fmt.Errorf("%s has no %s", at, script.Quote(seg))
				}
				return nil, fmt.Errorf("%s has no field %s", at, script.Quote(seg))
			}
			cur = x
		default:
			return nil, fmt.Errorf("%s is a value: no %s below it", at, script.Quote(seg))
		}
		at += "." + seg
	}
	return cur, nil
}

// Eval reports whether the predicate holds, and what the path gave.
func (v *View) Eval(e Expect) (bool, string) {
	got, err := v.Resolve(e.Path)
	if err != nil {
		return false, err.Error()
	}
	return compare(got, e.Op, e.Value), render(got)
}

func compare(got any, op string, want any) bool {
	switch op {
	case "contains", "!contains":
		has := false
		switch g := got.(type) {
		case []any:
			for _, x := range g {
				if equal(x, want) {
					has = true
				}
			}
		case string:
			s, ok := want.(string)
			has = ok && strings.Contains(g, s)
		}
		return has == (op == "contains")
	case "==":
		return equal(got, want)
	case "!=":
		return !equal(got, want)
	}
	g, ok1 := got.(float64)
	w, ok2 := want.(float64)
	if !ok1 || !ok2 {
		return false
	}
	switch op {
	case "<":
		return g < w
	case "<=":
		return g <= w
	case ">":
		return g > w
	}
	return g >= w
}

func equal(a, b any) bool {
	if fa, ok := a.(float64); ok {
		if s, ok := b.(string); ok { // a bare word that happens to be a number
			f, err := strconv.ParseFloat(s, 64)
			return err == nil && f == fa
		}
	}
	if sa, ok := a.(string); ok {
		if fb, ok := b.(float64); ok {
			f, err := strconv.ParseFloat(sa, 64)
			return err == nil && f == fb
		}
	}
	la, okA := a.([]any)
	lb, okB := b.([]any)
	if okA && okB {
		return slices.EqualFunc(la, lb, equal)
	}
	if okA || okB {
		return false
	}
	return a == b
}

func render(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// actors is what a lesson's commands create, for checking names in paths.
type actors struct {
	producers, consumers, txns map[string]bool
	topic                      string
	partitions                 int
}

func (p *parser) checkActors(l *Lesson) {
	a := actors{producers: map[string]bool{}, consumers: map[string]bool{}, txns: map[string]bool{}}
	def := sim.DefaultCluster()
	a.topic, a.partitions = def.Topic, def.Partitions
	var all []script.Command
	for _, st := range l.Steps {
		all = append(all, st.Commands...)
		if st.Prediction != nil {
			all = append(all, st.Prediction.Reveal...)
		}
		if st.Challenge != nil {
			all = append(all, st.Challenge.Solution...)
		}
	}
	for _, c := range all {
		switch c := c.(type) {
		case *script.Cluster:
			if c.Topic != "" {
				a.topic = c.Topic
			}
			if c.Partitions != 0 {
				a.partitions = c.Partitions
			}
		case *script.Producer:
			a.producers[c.Name] = true
			if c.TxnID != "" {
				a.txns[c.TxnID] = true
			}
		case *script.Consumer:
			a.consumers[c.Name] = true
		}
	}
	var check func(e Expect)
	check = func(e Expect) {
		if len(e.Path) > 2 && e.Path[0] == "replay" {
			// The replay plays the same commands: the same names.
			e.Path = e.Path[1:]
			check(e)
			return
		}
		if len(e.Path) < 2 || e.Path[1] == "count" || e.Path[1] == "*" {
			return
		}
		name := e.Path[1]
		var known map[string]bool
		what := ""
		switch e.Path[0] {
		case "producers":
			known, what = a.producers, "producer"
		case "consumers":
			known, what = a.consumers, "consumer"
		case "transactions":
			known, what = a.txns, "transactional id"
		case "partitions":
			var tps []string
			for i := range a.partitions {
				tps = append(tps, fmt.Sprintf("%s-%d", a.topic, i))
			}
			if !slices.Contains(tps, name) {
				p.errf(e.Line, "expect %s: no partition %s in this lesson's cluster%s", script.Quote(e.Text), script.Quote(name), suggest(name, tps))
			}
			return
		default:
			return
		}
		if !known[name] {
			names := make([]string, 0, len(known))
			for n := range known {
				names = append(names, n)
			}
			slices.Sort(names)
			p.errf(e.Line, "expect %s: no %s %s is created in this lesson%s", script.Quote(e.Text), what, script.Quote(name), suggest(name, names))
		}
	}
	for _, st := range l.Steps {
		for _, e := range st.Expect {
			check(e)
		}
		if st.Prediction != nil {
			for _, c := range st.Prediction.Choices {
				for _, e := range c.When {
					check(e)
				}
			}
		}
		if st.Challenge != nil {
			for _, g := range st.Challenge.Goals {
				for _, e := range g.When {
					check(e)
				}
			}
		}
	}
}

func suggest(w string, candidates []string) string {
	if s := script.Suggest(w, candidates); s != "" {
		return fmt.Sprintf(", did you mean %q?", s)
	}
	return ""
}
