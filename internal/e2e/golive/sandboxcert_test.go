package golive
