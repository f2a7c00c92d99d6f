package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The engine is deterministic by construction; these rules keep it so.
// Each violation names the file and line.
func TestEngineStaysDeterministic(t *testing.T) {
	bannedImports := map[string]string{
		"os": "no I/O in the engine", "net": "no I/O in the engine", "net/http": "no I/O in the engine",
		"math/rand": "use the world's seeded PRNG (math/rand/v2 rand.New)", "sync": "the engine is single-threaded",
		"github.com/eoslab/eoslab/ui": "engine imports nothing from ui", "github.com/eoslab/eoslab/lessons": "engine imports nothing from lessons",
		"github.com/eoslab/eoslab/themes": "engine imports nothing from themes",
	}
	bannedCalls := map[string]bool{
		"time.Now": true, "time.Sleep": true, "time.Since": true, "time.Until": true, "time.After": true,
		"time.Tick": true, "time.NewTimer": true, "time.NewTicker": true, "time.AfterFunc": true,
	}
	allowedRand := map[string]bool{"New": true, "NewPCG": true, "Rand": true, "PCG": true}
	walkGo(t, "engine", func(path string, f *ast.File, fset *token.FileSet) {
		if strings.HasSuffix(path, "_test.go") {
			return
		}
		randName := ""
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			for banned, why := range bannedImports {
				if p == banned || strings.HasPrefix(p, banned+"/") && strings.HasPrefix(banned, "github.com/") {
					t.Errorf("%s: imports %s: %s", fset.Position(im.Pos()), p, why)
				}
			}
			if p == "math/rand/v2" {
				randName = "rand"
				if im.Name != nil {
					randName = im.Name.Name
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.GoStmt:
				t.Errorf("%s: go statement: the engine starts no goroutines", fset.Position(n.Pos()))
			case *ast.SelectorExpr:
				if id, ok := n.X.(*ast.Ident); ok {
					if bannedCalls[id.Name+"."+n.Sel.Name] {
						t.Errorf("%s: %s.%s: the engine has only a logical clock", fset.Position(n.Pos()), id.Name, n.Sel.Name)
					}
					if randName != "" && id.Name == randName && !allowedRand[n.Sel.Name] {
						t.Errorf("%s: %s.%s: global randomness; use the world's seeded *rand.Rand", fset.Position(n.Pos()), id.Name, n.Sel.Name)
					}
				}
			}
			return true
		})
	})
}

func walkGo(t *testing.T, root string, fn func(string, *ast.File, *token.FileSet)) {
	t.Helper()
	fset := token.NewFileSet()
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".go") {
			return err
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		fn(path, f, fset)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
