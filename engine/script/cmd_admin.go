package script

import "strconv"

// TxnToolOp is one of the operator's kafka-transactions.sh commands.
type TxnToolOp int

const (
	DescribeProducers TxnToolOp = iota // kafka-transactions.sh describe-producers
	FindHanging                        // kafka-transactions.sh find-hanging
	AbortTransaction                   // kafka-transactions.sh abort --start-offset
)

func (o TxnToolOp) String() string {
	return [...]string{"describe-producers", "find-hanging", "abort"}[o]
}

// TxnTool is `transactions describe-producers TOPIC-PARTITION [broker=ID]`,
// `transactions find-hanging [broker=ID]` or
// `transactions abort TOPIC-PARTITION start-offset=N`: what an operator
// runs with kafka-transactions.sh to find a transaction no coordinator will
// finish and to write its ABORT marker.
type TxnTool struct {
	At          Pos
	Op          TxnToolOp
	TP          TopicPartition // describe-producers, abort
	Broker      int            // describe-producers, find-hanging: 0 = not given
	StartOffset int64          // abort
}

func (t *TxnTool) Position() Pos { return t.At }
func (t *TxnTool) Verb() string  { return "transactions " + t.Op.String() }

func (t *TxnTool) formatArgs(w *words) {
	if t.Op != FindHanging {
		w.add(t.TP.String())
	}
	if t.Broker != 0 {
		w.num("broker", int64(t.Broker))
	}
	if t.Op == AbortTransaction {
		w.add("start-offset=" + strconv.FormatInt(t.StartOffset, 10))
	}
}

func txnToolParser(op TxnToolOp) func(*cmdLine) (Command, *Error) {
	return func(l *cmdLine) (Command, *Error) {
		c := &TxnTool{At: l.at, Op: op}
		if op != FindHanging {
			tp, err := l.tpArg()
			if err != nil {
				return nil, err
			}
			c.TP = tp
		}
		keys := []string{"broker"}
		if op == AbortTransaction {
			keys = []string{"start-offset"}
		}
		opts, err := l.options(optSpec{keys: keys})
		if err != nil {
			return nil, err
		}
		given := false
		for _, o := range opts {
			switch o.key {
			case "broker":
				n, err := l.number(token{pos: o.pos, val: o.val}, "broker", limBrokerID)
				if err != nil {
					return nil, err
				}
				c.Broker = int(n)
			case "start-offset":
				n, err := l.number(token{pos: o.pos, val: o.val}, "start-offset", limStartOffset)
				if err != nil {
					return nil, err
				}
				c.StartOffset, given = n, true
			}
		}
		if op == AbortTransaction && !given {
			return nil, l.missing("start-offset=N")
		}
		return c, nil
	}
}
