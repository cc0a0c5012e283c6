package schema

type docCheck struct{}

func newDocCheck(a *Application, s *Schema) *docCheck { return &docCheck{} }
