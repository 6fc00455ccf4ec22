package hidden

func Exported() {}
