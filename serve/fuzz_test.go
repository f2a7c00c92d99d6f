package serve

import (
	"bufio"
	"bytes"
	"testing"

	"github.com/eoslab/eoslab/engine/script"
	"github.com/eoslab/eoslab/engine/sim"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// FuzzFrame: reading a frame and decoding its request never panics; a
// frame either fails with a reason or decodes to a request whose arrival
// the world takes (answering it or refusing it with an error, never
// panicking).
func FuzzFrame(f *testing.F) {
	md := kmsg.NewPtrMetadataRequest()
	md.SetVersion(9)
	f.Add(rawRequest(md, 1, "kgo"))
	av := kmsg.NewPtrApiVersionsRequest()
	av.SetVersion(3)
	f.Add(rawRequest(av, 2, "rdkafka"))
	pr := kmsg.NewPtrProduceRequest()
	pr.SetVersion(9)
	pt := kmsg.NewProduceRequestTopic()
	pt.Topic = "orders"
	pp := kmsg.NewProduceRequestTopicPartition()
	pp.Records = []byte{0, 1, 2}
	pt.Partitions = append(pt.Partitions, pp)
	pr.Topics = append(pr.Topics, pt)
	f.Add(rawRequest(pr, 3, "p"))
	fr := kmsg.NewPtrFetchRequest()
	fr.SetVersion(11)
	f.Add(rawRequest(fr, 4, "c"))
	ct := kmsg.NewPtrCreateTopicsRequest()
	ct.SetVersion(7)
	ctt := kmsg.NewCreateTopicsRequestTopic()
	ctt.Topic, ctt.NumPartitions, ctt.ReplicationFactor = "events", -1, -1
	ct.Topics = append(ct.Topics, ctt)
	f.Add(rawRequest(ct, 5, "admin"))
	amd := kmsg.NewPtrMetadataRequest()
	amd.SetVersion(12)
	amd.AllowAutoTopicCreation = true
	amt := kmsg.NewMetadataRequestTopic()
	name := "fresh"
	amt.Topic = &name
	amd.Topics = append(amd.Topics, amt)
	f.Add(rawRequest(amd, 6, "auto"))
	dg := kmsg.NewPtrDescribeGroupsRequest()
	dg.SetVersion(5)
	dg.Groups = []string{"g1", ""}
	f.Add(rawRequest(dg, 7, "admin"))
	lg := kmsg.NewPtrListGroupsRequest()
	lg.SetVersion(5)
	lg.StatesFilter, lg.TypesFilter = []string{"Stable"}, []string{"classic"}
	f.Add(rawRequest(lg, 8, "admin"))
	dc := kmsg.NewPtrDescribeConfigsRequest()
	dc.SetVersion(4)
	dcr := kmsg.NewDescribeConfigsRequestResource()
	dcr.ResourceType, dcr.ResourceName = kmsg.ConfigResourceTypeTopic, "orders"
	dc.Resources = append(dc.Resources, dcr)
	f.Add(rawRequest(dc, 9, "admin"))
	cp := kmsg.NewPtrCreatePartitionsRequest()
	cp.SetVersion(3)
	cpt := kmsg.NewCreatePartitionsRequestTopic()
	cpt.Topic, cpt.Count = "orders", 4
	cp.Topics = append(cp.Topics, cpt)
	f.Add(rawRequest(cp, 10, "admin"))
	dlg := kmsg.NewPtrDeleteGroupsRequest()
	dlg.SetVersion(2)
	dlg.Groups = []string{"g1", "g1"}
	f.Add(rawRequest(dlg, 11, "admin"))
	el := kmsg.NewPtrElectLeadersRequest()
	el.SetVersion(2)
	el.ElectionType = 1
	f.Add(rawRequest(el, 12, "admin"))
	od := kmsg.NewPtrOffsetDeleteRequest()
	od.Group = "g1"
	odt := kmsg.NewOffsetDeleteRequestTopic()
	odt.Topic = "orders"
	odt.Partitions = append(odt.Partitions, kmsg.NewOffsetDeleteRequestTopicPartition())
	od.Topics = append(od.Topics, odt)
	f.Add(rawRequest(od, 13, "admin"))
	f.Add([]byte{0, 0, 0, 8, 0, 7, 0, 0, 0, 0, 0, 7}) // ControlledShutdown v0: no client id
	f.Add([]byte{0, 0, 0, 0})
	f.Add([]byte{0xff, 0xff, 0xff, 0xff})
	f.Fuzz(func(t *testing.T, data []byte) {
		frame, err := ReadFrame(bufio.NewReader(bytes.NewReader(data)), 1<<20)
		if err != nil {
			return
		}
		hdr, _, _, err := sim.DecodeRequest(frame)
		if err != nil {
			return
		}
		w, werr := NewWorld(1, "orders", 3)
		if werr != nil {
			t.Fatal(werr)
		}
		w.KeepOutgoing(true)
		if _, err := w.Apply(&script.Arrive{Conn: 1, Broker: 1, API: sim.APIName(hdr.Key), Data: frame}); err != nil {
			return
		}
		for range 50 {
			if _, ok := w.Step(); !ok {
				break
			}
		}
		for _, o := range w.TakeOutgoing() {
			if o.Response != nil {
				sim.AppendResponse(nil, o.CorrelationID, o.Response)
			}
		}
	})
}
