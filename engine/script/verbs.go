package script

import (
	"fmt"
	"slices"
	"strings"
)

// Usage describes one verb for help text and completion.
type Usage struct{ Verb, Syntax, Summary string }

// verbSpec is one entry of the verb table: its usage and its parse function.
type verbSpec struct {
	Usage
	parse func(*cmdLine) (Command, *Error)
}

// verbTable lists every verb. Two-word verbs are spelled with one space; the
// first word alone is then not a verb. Order matters only for help output
// and for breaking ties between equally near suggestions.
var verbTable = []verbSpec{
	{Usage{"cluster", "cluster [brokers=N] [topic=NAME] [partitions=N] [rf=N] [min.insync=N] [transaction.version=1|2] [segment.bytes=N] [producer.id.start=N] [transaction.max.timeout.ms=N] [broker.latency.ms=N]",
		"create the cluster and its topic"}, parseCluster},
	{Usage{"feature", "feature transaction.version=1|2",
		"upgrade or downgrade the cluster's finalized transaction.version (kafka-features.sh)"}, parseFeature},
	{Usage{"producer", "producer NAME [idempotent | plain | transactional=TXN_ID] [KEY=VALUE ...]",
		"create a producer and start its InitProducerId"}, parseProducer},
	{Usage{"send", "send NAME TOPIC-PARTITION COUNT [key=K] [value=V]",
		"enqueue COUNT records as one batch"}, parseSend},
	{Usage{"inject", "inject TOPIC-PARTITION pid=N epoch=N seq=N count=N [txn]",
		"hand a hand-built batch straight to the partition leader"}, parseInject},
	{Usage{"step", "step [N]", "perform the next N due events (default 1)"}, parseStep},
	{Usage{"run", "run", "perform events until nothing is due"}, parseRun},
	{Usage{"lose request", "lose request NAME [TOPIC-PARTITION seq=N]",
		"break the connection silently at a request: it and all after it are lost"}, faultParser(Lose, Request)},
	{Usage{"lose response", "lose response NAME [TOPIC-PARTITION seq=N]",
		"break the connection silently at a response, after the broker acted"}, faultParser(Lose, Response)},
	{Usage{"delay request", "delay request NAME [TOPIC-PARTITION seq=N]",
		"hold a request back, and its connection with it"}, faultParser(Delay, Request)},
	{Usage{"delay response", "delay response NAME [TOPIC-PARTITION seq=N]",
		"hold a response back, and its connection with it"}, faultParser(Delay, Response)},
	{Usage{"reset connection", "reset connection NAME BROKER",
		"reset a client's connection to a broker: both ends learn at once"}, parseResetConnection},
	{Usage{"fail request", "fail request NAME TOPIC-PARTITION [seq=N] ERROR",
		"make the leader refuse a batch before appending it, with a retriable error"}, parseFailRequest},
	{Usage{"restart producer", "restart producer NAME",
		"restart the producer application: new PID, fresh sequences"}, parseRestartProducer},
	{Usage{"pause", "pause NAME", "stop the producer process"}, parsePause},
	{Usage{"resume", "resume NAME", "let a paused producer process continue"}, parseResume},
	{Usage{"restart broker", "restart broker ID [clean]",
		"restart a broker: a crash by default, clean shuts down first"}, parseRestartBroker},
	{Usage{"kill broker", "kill broker ID", "stop a broker until it is restarted"}, parseKillBroker},
	{Usage{"failover", "failover TOPIC-PARTITION [unclean] | failover coordinator TXN_ID",
		"move partition leadership, or a transaction coordinator, to another broker"}, parseFailover},
	{Usage{"advance", "advance DURATION", "move the clock on, performing events that fall due"}, parseAdvance},
	{Usage{"begin", "begin NAME", "begin a transaction (transactional producers)"}, txnParser(Begin)},
	{Usage{"commit", "commit NAME", "commit the transaction"}, txnParser(Commit)},
	{Usage{"abort", "abort NAME", "abort the transaction"}, txnParser(Abort)},
	{Usage{"consumer", "consumer NAME read_committed|read_uncommitted TOPIC-PARTITION... [group=G] [max.poll.records=N] [max.poll.interval.ms=N]",
		"create a consumer of some partitions"}, parseConsumer},
	{Usage{"restart consumer", "restart consumer NAME",
		"restart the consumer application at its group's committed offsets"}, parseRestartConsumer},
	{Usage{"poll", "poll NAME", "fetch once from each of the consumer's partitions"}, parsePoll},
	{Usage{"seek", "seek NAME committed",
		"move a consumer back to its group's committed offsets (after an abort)"}, parseSeek},
	{Usage{"send-offsets", "send-offsets NAME GROUP [consumer=NAME] [legacy]",
		"put the group's consumer positions in the producer's transaction"}, parseSendOffsets},
	{Usage{"lose markers", "lose markers TOPIC-PARTITION", "drop the next transaction markers for a partition"}, markerParser(Lose)},
	{Usage{"delay markers", "delay markers TOPIC-PARTITION", "hold the next transaction markers for a partition back"}, markerParser(Delay)},
	{Usage{"effect", "effect NAME LABEL", "an external side effect no transaction can undo"}, parseEffect},
	{Usage{"transactions describe-producers", "transactions describe-producers TOPIC-PARTITION [broker=ID]",
		"list a partition's producers and their open transactions (kafka-transactions.sh)"}, txnToolParser(DescribeProducers)},
	{Usage{"transactions find-hanging", "transactions find-hanging [broker=ID]",
		"find open transactions no coordinator will finish (kafka-transactions.sh)"}, txnToolParser(FindHanging)},
	{Usage{"transactions abort", "transactions abort TOPIC-PARTITION start-offset=N",
		"write the ABORT marker of a hanging transaction (kafka-transactions.sh)"}, txnToolParser(AbortTransaction)},
	{Usage{"arrive", "arrive CONN BROKER API at=MS data=BASE64",
		"a real client's request, as eoslab serve received it"}, parseArrive},
	{Usage{"hangup", "hangup CONN at=MS", "a real client's connection closes"}, parseHangup},
	{Usage{"diagnose", "diagnose ANOMALY TOPIC-PARTITION OFFSET",
		"name an anomaly of the history (duplicate, lost, reordered, zombie_write, aborted_read, read_past_LSO) at an offset: the checker judges it"}, parseDiagnose},
	{Usage{"replay", "replay NAME [idempotent | plain | transactional=TXN_ID] [KEY=VALUE ...]",
		"play the history again from its start with producer NAME configured so, and count what the checker finds"}, parseReplay},
}

// Verbs lists every verb spelling with its usage, in table order.
func Verbs() []Usage {
	out := make([]Usage, 0, len(verbTable))
	for _, v := range verbTable {
		if !wireVerb(v.Verb) {
			out = append(out, v.Usage)
		}
	}
	return out
}

// WireVerbs lists the verbs that record what real clients did to `eoslab
// serve` (arrive, hangup). Scripts and :load take them like any other,
// but nobody types them: the command bar's help and completion leave
// them out.
func WireVerbs() []Usage {
	var out []Usage
	for _, v := range verbTable {
		if wireVerb(v.Verb) {
			out = append(out, v.Usage)
		}
	}
	return out
}

func wireVerb(v string) bool { return v == "arrive" || v == "hangup" }

// verbHeads returns the distinct first words of all verbs, the candidates
// for suggesting a fix to an unknown first word.
func verbHeads() []string {
	var heads []string
	for _, v := range verbTable {
		head, _, _ := strings.Cut(v.Verb, " ")
		if !slices.Contains(heads, head) {
			heads = append(heads, head)
		}
	}
	return heads
}

// lookupVerb finds the verb that starts toks and returns how many tokens
// it spans (1 or 2).
func lookupVerb(toks []token) (*verbSpec, int, *Error) {
	first := toks[0]
	if first.isPair || first.quoted {
		return nil, 0, &Error{Pos: first.pos, Msg: fmt.Sprintf("expected a command, got %s", shown(first.text))}
	}
	var subs []string
	for i := range verbTable {
		v := &verbTable[i]
		if v.Verb == first.val {
			return v, 1, nil
		}
		if head, sub, ok := strings.Cut(v.Verb, " "); ok && head == first.val {
			subs = append(subs, sub)
		}
	}
	if len(subs) == 0 {
		msg := fmt.Sprintf("unknown command %s%s", Quote(first.val), didYouMean(first.val, verbHeads()))
		return nil, 0, &Error{Pos: first.pos, Msg: msg}
	}
	if len(toks) < 2 {
		msg := fmt.Sprintf("%s: expected %s", first.val, orList(subs))
		return nil, 0, &Error{Pos: Pos{first.pos.Line, first.end}, Msg: msg}
	}
	second := toks[1]
	for _, sub := range subs {
		if !second.isPair && !second.quoted && second.val == sub {
			spec, _ := findVerb(first.val + " " + sub)
			return spec, 2, nil
		}
	}
	msg := fmt.Sprintf("unknown command %s", Quote(first.val+" "+second.text))
	if s := Suggest(second.text, subs); s != "" {
		msg += fmt.Sprintf(", did you mean %q?", first.val+" "+s)
	} else {
		msg += fmt.Sprintf(" (%s: expected %s)", first.val, orList(subs))
	}
	return nil, 0, &Error{Pos: second.pos, Msg: msg}
}

// findVerb returns the table entry with exactly this spelling.
func findVerb(verb string) (*verbSpec, bool) {
	for i := range verbTable {
		if verbTable[i].Verb == verb {
			return &verbTable[i], true
		}
	}
	return nil, false
}

// orList renders ["a" "b" "c"] as `"a", "b" or "c"`.
func orList(ws []string) string {
	q := make([]string, len(ws))
	for i, w := range ws {
		q[i] = fmt.Sprintf("%q", w)
	}
	if len(q) == 1 {
		return q[0]
	}
	return strings.Join(q[:len(q)-1], ", ") + " or " + q[len(q)-1]
}
