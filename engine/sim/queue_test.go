package sim

import (
	"reflect"
	"testing"
	"unsafe"
)

// TestPutCopiesAll fills every field of an item, however deep, with a value
// of its own and checks that put copies each: a field added to item,
// flight or the message and not to put would fail here.
func TestPutCopiesAll(t *testing.T) {
	var src item
	n := 0
	var fill func(v reflect.Value)
	fill = func(v reflect.Value) {
		n++
		switch v.Kind() {
		case reflect.Struct:
			for i := range v.NumField() {
				f := v.Field(i) // unexported: set through its address
				fill(reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem())
			}
		case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
			v.SetInt(int64(n))
		case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
			v.SetUint(uint64(n))
		case reflect.Bool:
			v.SetBool(true)
		case reflect.String:
			v.SetString(string(rune('a' + n%26)))
		case reflect.Pointer:
			v.Set(reflect.New(v.Type().Elem()))
		case reflect.Interface:
			v.Set(reflect.ValueOf(wireRequest{}))
		default:
			t.Fatalf("a field of kind %s: teach this test (and put) about it", v.Kind())
		}
	}
	fill(reflect.ValueOf(&src).Elem())
	var dst item
	put(&dst, &src)
	if !reflect.DeepEqual(dst, src) {
		t.Fatalf("put left fields behind:\n got %+v\nwant %+v", dst, src)
	}
}
