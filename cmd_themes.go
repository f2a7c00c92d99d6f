package main

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/lipgloss"
	"github.com/spf13/cobra"

	"github.com/eoslab/eoslab/themes"
	"github.com/eoslab/eoslab/ui/styles"
)

func newThemesCommand(cfg *config) *cobra.Command {
	return &cobra.Command{
		Use:   "themes [NAME]",
		Short: "List the colour themes, or preview one",
		Long: `themes lists the built-in themes and those in the user's themes directory
($XDG_CONFIG_HOME/eoslab/themes/*.yaml), checking every file; a broken file is
reported as file:line: problem. With a NAME it previews that theme: a sample
of every role. Choose one with --theme, EOSLAB_THEME or theme: in the config
file; "auto" picks dark or light from the terminal's background.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			out := cmd.OutOrStdout()
			dir := themes.UserDir()
			users, errs := themes.User(dir)
			for _, err := range errs {
				fmt.Fprintln(cmd.ErrOrStderr(), err)
			}
			if len(args) == 0 {
				fmt.Fprintln(out, "built-in: "+strings.Join(themes.BuiltinNames(), ", ")+" (and auto: dark or light from the terminal)")
				var names []string
				for _, t := range users {
					names = append(names, t.Name)
				}
				if len(names) == 0 {
					names = []string{"none"}
				}
				fmt.Fprintf(out, "user (%s): %s\n", dir, strings.Join(names, ", "))
				fmt.Fprintln(out, "preview one: eoslab themes NAME")
				if len(errs) > 0 {
					return exitError{1}
				}
				return nil
			}
			r := lipgloss.NewRenderer(out)
			t, err := themes.Resolve(args[0], dir, r.HasDarkBackground())
			if err != nil {
				return err
			}
			preview(out, r, t, cfg.Options().ASCII)
			return nil
		},
	}
}

// preview prints a sample of every role of a theme.
func preview(out interface{ Write([]byte) (int, error) }, r *lipgloss.Renderer, t *themes.Theme, ascii bool) {
	s := styles.New(r, t.Palette)
	block := "■■"
	if ascii {
		block = "##"
	}
	line := func(st lipgloss.Style, role, sample string) {
		fmt.Fprintf(out, "  %-16s %s\n", role, st.Render(block+" "+sample))
	}
	fmt.Fprintf(out, "%s (%s)\n", t.Name, t.File)
	line(s.Text, "text", "narration and values")
	line(s.Muted, "muted", "labels, hints")
	line(s.Faint, "faint", "what matters least")
	line(s.Accent, "accent", "titles, keys, the focus")
	line(s.Border, "border", "panel frames")
	line(s.BorderFocus, "border_focus", "the focused panel's frame")
	line(s.Good, "append", "+ appended at offsets 0-2")
	line(s.Warn, "duplicate", "= duplicate: answered with offsets 0-2")
	line(s.Bad, "reject", "x OUT_OF_ORDER_SEQUENCE_NUMBER (45)")
	line(s.HighWatermark, "high_watermark", "HW 7")
	line(s.LastStable, "lso", "LSO 4")
	line(s.Lost, "lost", "message lost")
	line(s.Fenced, "fenced", "PRODUCER_FENCED")
	line(s.Records, "records", "record bytes")
	line(s.StatusBar, "status", " status bar ")
	fmt.Fprintln(out, "  header fields:")
	for i, f := range themes.FieldRoles {
		line(s.Fields[i], "  "+f, "")
	}
	fmt.Fprint(out, "  producers:       ")
	for i := range t.Palette.Producers {
		fmt.Fprint(out, s.Producer(i).Render(fmt.Sprintf("p%d ", i+1)))
	}
	fmt.Fprintln(out)
}
